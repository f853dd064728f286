// Batched CG: BK independent CG recurrences (one per right-hand side) run in lockstep, their vectors
// interleaved in n x BK row-major blocks (element (i, j) at i*BK + j; see spmv/csr_multi.cl), so the
// SpMV reads the matrix once for all columns. Not block-CG: every column keeps its own alpha, beta and
// rho, exactly the scalars of its separate fused CG (cg.cl), and the three passes per iteration are
// cg.cl's, column-wise:
//
//   step 1  Q = A P, per work-group partial sums of p_j'q_j           (bcg_spmm_dot)
//   step 2  alpha_j = rho_j / p_j'q_j; x_j += alpha_j p_j; r_j -= alpha_j q_j;
//           partial sums of r_j'r_j (Jacobi: also z_j = D^-1 r_j and r_j'z_j) (bcg_update_xr[_jacobi])
//   step 3  beta_j = rho_new_j / rho_j; p_j = z_j + beta_j p_j (z = r unpreconditioned)   (bcg_update_p)
//
// The scalar block `s` holds kScalars = 4 reals per column at j*4: [0], [1] rho in two slots (step 3
// reads the old slot, writes the new one), [2] p'q of the last step 2, [3] r'r (rho is r'z with
// Jacobi). Partials of column j are at j*groups + group. `active[j]` == 0 freezes column j (converged
// or ended): its x, r and p are left as they are and its rho is carried over, while the others go on.
#include "spmv/csr_multi.cl"
#include "solver/group_reduce.cl"

#define S_INDEX(j, field) ((j)*4 + (field))

// One row of a block (the BK values of row i, at base = i*BK) into a private array and back. A row is
// loaded whole before any store: the compiler cannot tell that the blocks do not overlap, and a store
// between two loads of another block would keep it from vectorizing across the columns (on PoCL in
// single precision the interleaved version of the p update ran at 4 GB/s).
#define LOAD_ROW(v, block, base) UNROLL for (int j_ = 0; j_ < BK; ++j_)(v)[j_] = VEC_LOAD(block, (base) + j_)
#define STORE_ROW(block, base, v) UNROLL for (int j_ = 0; j_ < BK; ++j_) VEC_STORE(block, (base) + j_, (v)[j_])

// Work-group sums of the BK per-column values v[j], one partial per (column, group).
inline void store_column_partials(const real* v, VEC_ARG(partials), __local real* scratch) {
  const int groups = (int)get_num_groups(0), group = (int)get_group_id(0);
  for (int j = 0; j < BK; ++j) {
    const real total = group_sum(v[j], scratch);
    if (get_local_id(0) == 0) VEC_STORE(partials, j * groups + group, total);
  }
}

// Step 1.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void bcg_spmm_dot(
    const int rows, const int chunk, __global const offset_t* row_offsets, __global const int* cols, CVEC_ARG(val),
    CVEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), __local real* scratch) {
  real pq[BK];
  for (int j = 0; j < BK; ++j) pq[j] = R_ZERO;
  FOR_EACH_ROW(row, rows, chunk) {
    real s[BK];
    csr_row_sums_multi(row_offsets[row], row_offsets[row + 1], cols, VEC_PASS(val), VEC_PASS(p), s);
    const size_t base = (size_t)row * BK;
    UNROLL for (int j = 0; j < BK; ++j) {
      VEC_STORE(q, base + j, s[j]);
      pq[j] = R_MAD(VEC_LOAD(p, base + j), s[j], pq[j]);
    }
  }
  store_column_partials(pq, VEC_PASS(partials), scratch);
}

// alpha_j of step 2 and whether column j steps at all: an inactive column, or one whose p'q is not
// positive and finite (A not SPD: the host sees p'q in s and ends that column), keeps x_j and r_j.
// The kernels select the kept value rather than branch around the store: a select per column
// vectorizes across the unrolled columns, a conditional store did not (PoCL: 2x slower than cg.cl's
// x/r update per element).
inline void column_alphas(const int count, const int rho_slot, __global const int* active, CVEC_ARG(pq_partials),
                          VEC_ARG(s), real* alpha, int* step, __local real* scratch) {
  for (int j = 0; j < BK; ++j) {
    const real pq = sum_partials(j * count, count, VEC_PASS(pq_partials), scratch);
    step[j] = active[j] && R_POSITIVE_FINITE(pq);
    alpha[j] = step[j] ? R_DIV(VEC_LOAD(s, S_INDEX(j, rho_slot)), pq) : R_ZERO;
    if (get_global_id(0) == 0) VEC_STORE(s, S_INDEX(j, 2), pq);
  }
}

// Step 2 without a preconditioner.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void bcg_update_xr(
    const int n, const int chunk, const int count, const int rho_slot, __global const int* active,
    CVEC_ARG(pq_partials), VEC_ARG(s), CVEC_ARG(p), CVEC_ARG(q), VEC_ARG(x), VEC_ARG(r), VEC_ARG(rr_partials),
    __local real* scratch) {
  real alpha[BK], rr[BK];
  int step[BK];
  column_alphas(count, rho_slot, active, VEC_PASS(pq_partials), VEC_PASS(s), alpha, step, scratch);
  UNROLL for (int j = 0; j < BK; ++j) rr[j] = R_ZERO;
  FOR_EACH_ROW(i, n, chunk) {
    const size_t base = (size_t)i * BK;
    real pv[BK], qv[BK], xv[BK], rv[BK];
    LOAD_ROW(pv, p, base);
    LOAD_ROW(qv, q, base);
    LOAD_ROW(xv, x, base);
    LOAD_ROW(rv, r, base);
    UNROLL for (int j = 0; j < BK; ++j) {
      xv[j] = step[j] ? R_MAD(alpha[j], pv[j], xv[j]) : xv[j];
      rv[j] = step[j] ? R_SUB(rv[j], R_MUL(alpha[j], qv[j])) : rv[j];
      rr[j] = R_MAD(rv[j], rv[j], rr[j]);
    }
    STORE_ROW(x, base, xv);
    STORE_ROW(r, base, rv);
  }
  store_column_partials(rr, VEC_PASS(rr_partials), scratch);
}

// Step 2 with the Jacobi preconditioner fused in: z = D^-1 r (inv_diag: 1 / a_ii, one per row, read
// once for the BK columns) right after r is updated, and the partial sums of r'z beside those of r'r.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void bcg_update_xr_jacobi(
    const int n, const int chunk, const int count, const int rho_slot, __global const int* active,
    CVEC_ARG(pq_partials), VEC_ARG(s), CVEC_ARG(p), CVEC_ARG(q), VEC_ARG(x), VEC_ARG(r), VEC_ARG(rr_partials),
    CVEC_ARG(inv_diag), VEC_ARG(z), VEC_ARG(rz_partials), __local real* scratch) {
  real alpha[BK], rr[BK], rz[BK];
  int step[BK];
  column_alphas(count, rho_slot, active, VEC_PASS(pq_partials), VEC_PASS(s), alpha, step, scratch);
  UNROLL for (int j = 0; j < BK; ++j) rr[j] = rz[j] = R_ZERO;
  FOR_EACH_ROW(i, n, chunk) {
    const size_t base = (size_t)i * BK;
    const real d = VEC_LOAD(inv_diag, i);
    real pv[BK], qv[BK], xv[BK], rv[BK], zv[BK];
    LOAD_ROW(pv, p, base);
    LOAD_ROW(qv, q, base);
    LOAD_ROW(xv, x, base);
    LOAD_ROW(rv, r, base);
    UNROLL for (int j = 0; j < BK; ++j) {
      xv[j] = step[j] ? R_MAD(alpha[j], pv[j], xv[j]) : xv[j];
      rv[j] = step[j] ? R_SUB(rv[j], R_MUL(alpha[j], qv[j])) : rv[j];
      zv[j] = R_MUL(d, rv[j]);
      rr[j] = R_MAD(rv[j], rv[j], rr[j]);
      rz[j] = R_MAD(rv[j], zv[j], rz[j]);
    }
    STORE_ROW(x, base, xv);
    STORE_ROW(r, base, rv);
    STORE_ROW(z, base, zv);
  }
  store_column_partials(rr, VEC_PASS(rr_partials), scratch);
  store_column_partials(rz, VEC_PASS(rz_partials), scratch);
}

// Step 3: rho_new_j (r'r, or r'z with Jacobi: rho_partials) goes to slot 1 - rho_slot, r'r to s[3];
// both written once by work-item 0. An inactive column keeps p_j and carries its rho over.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void bcg_update_p(
    const int n, const int chunk, const int count, const int rho_slot, __global const int* active,
    CVEC_ARG(rho_partials), CVEC_ARG(rr_partials), VEC_ARG(s), CVEC_ARG(z), VEC_ARG(p), __local real* scratch) {
  real beta[BK];
  int on[BK];
  for (int j = 0; j < BK; ++j) {
    const real rho_new = sum_partials(j * count, count, VEC_PASS(rho_partials), scratch);
    const real rr = sum_partials(j * count, count, VEC_PASS(rr_partials), scratch);
    const real rho_old = VEC_LOAD(s, S_INDEX(j, rho_slot));
    on[j] = active[j];
    beta[j] = R_DIV(rho_new, rho_old);
    if (get_global_id(0) == 0) {
      VEC_STORE(s, S_INDEX(j, 1 - rho_slot), on[j] ? rho_new : rho_old);
      VEC_STORE(s, S_INDEX(j, 3), rr);
    }
  }
  FOR_EACH_ROW(i, n, chunk) {
    const size_t base = (size_t)i * BK;
    real pv[BK], zv[BK];
    LOAD_ROW(pv, p, base);
    LOAD_ROW(zv, z, base);
    UNROLL for (int j = 0; j < BK; ++j) pv[j] = on[j] ? R_MAD(beta[j], pv[j], zv[j]) : pv[j];
    STORE_ROW(p, base, pv);
  }
}

// Packing: column j of a block to and from a plain vector of n elements (entry, exit, and the
// per-column restarts after a convergence check).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void bcg_get_column(const int n, const int chunk,
                                                                              const int j, CVEC_ARG(block),
                                                                              VEC_ARG(v)) {
  FOR_EACH_ROW(i, n, chunk) VEC_STORE(v, i, VEC_LOAD(block, (size_t)i * BK + j));
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void bcg_set_column(const int n, const int chunk,
                                                                              const int j, CVEC_ARG(v),
                                                                              VEC_ARG(block)) {
  FOR_EACH_ROW(i, n, chunk) VEC_STORE(block, (size_t)i * BK + j, VEC_LOAD(v, i));
}
