// Fused conjugate-gradient steps: the three passes over memory one CG iteration needs, with every
// scalar (alpha, beta, rho) computed and kept on the device, so the host only reads r'r back to test
// convergence, without stalling the queue.
//
//   step 1  q = A p, and per work-group partial sums of p'q       (cg_spmv_csr_dot, cg_spmv_ell_dot,
//                                                                   cg_sell.cl's, cg_dia.cl's, or a
//                                                                   plain SpMV then cg_dot_partials)
//   step 2  alpha = rho / p'q; x += alpha p; r -= alpha q;
//           per work-group partial sums of r'r                    (cg_update_xr)
//   step 3  beta = r'r / rho; p = r + beta p; rho <- r'r          (cg_update_p)
//
// Preconditioned (PCG), between steps 2 and 3 the preconditioner computes z = M^-1 r and
// cg_dot_partials the partial sums of r'z; step 3 is then
//   step 3' beta = r'z / rho; p = z + beta p; rho <- r'z; s[3] <- r'r   (cg_update_p_preconditioned)
//
// The scalar block `s` (one real each): s[0], s[1] = rho in two slots (step 3 reads the old slot and
// writes the new one, so no work-group overwrites a value another one is still reading), s[2] = p'q
// of the last step 2 (the host checks it for "not SPD"), s[3] = r'r (PCG only: rho is r'z there).
// Partial sums are reduced by every work-group that needs the total (a few hundred values, served from
// cache), which saves a kernel launch and a queue round trip per scalar.
//
// Mixed precision (-DCG_SINGLE_PRECONDITIONER, only with -DCLKR_DOUBLE): a double solve whose
// preconditioner computes in single. Step 2 also stores r rounded to float, the copy the
// preconditioner reads, and r'z and step 3' read the preconditioner's z as floats, so no pass converts
// r or z between the precisions (24 bytes a row and two launches an iteration fewer).
#include "spmv/csr.cl"
#include "spmv/ell.cl"
#include "solver/group_reduce.cl"

#ifdef CG_SINGLE_PRECONDITIONER
#define PRECONDITIONED_ARG(z) __global const float* z
#define PRECONDITIONED_LOAD(z, i) R_FROM_FLOAT((z)[i])
#define SINGLE_COPY_ARG(r) , __global float* r
#define SINGLE_COPY_STORE(r, i, v) ((r)[i] = (float)(v))
#else
#define PRECONDITIONED_ARG(z) CVEC_ARG(z)
#define PRECONDITIONED_LOAD(z, i) VEC_LOAD(z, i)
#define SINGLE_COPY_ARG(r)
#define SINGLE_COPY_STORE(r, i, v)
#endif

// Step 1, CSR: one row per work-item at a time, walking the rows like the vector updates (a grid-stride
// over rows on GPUs, a contiguous block on CPUs), so there are as few partial sums as work-groups.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_spmv_csr_dot(
    const int rows, const int chunk, __global const offset_t* row_offsets, __global const int* cols, CVEC_ARG(val),
    CVEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), __local real* scratch) {
  real pq = R_ZERO;
  FOR_EACH_ELEMENT(row, rows, chunk) {
    const real s = acc_value(csr_row_sum(row_offsets[row], row_offsets[row + 1], cols, VEC_PASS(val), VEC_PASS(p)));
    VEC_STORE(q, row, s);
    pq = R_MAD(VEC_LOAD(p, row), s, pq);
  }
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}

// Step 1, ELL (column-major: neighbouring work-items read neighbouring words).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_spmv_ell_dot(
    const int rows, const int chunk, const int width, const int pitch, __global const int* cols, CVEC_ARG(val),
    CVEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), __local real* scratch) {
  real pq = R_ZERO;
  FOR_EACH_ELEMENT(row, rows, chunk) {
    const real s = acc_value(ell_row_sum(row, width, pitch, cols, VEC_PASS(val), VEC_PASS(p)));
    VEC_STORE(q, row, s);
    pq = R_MAD(VEC_LOAD(p, row), s, pq);
  }
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}

// Step 1 for formats without a fused kernel: partial sums of p'q after a plain SpMV wrote q. PCG sums
// r'z with it too (p = r, q = z: the preconditioner's output, single in a mixed-precision build).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_dot_partials(
    const int n, const int chunk, CVEC_ARG(p), PRECONDITIONED_ARG(q), VEC_ARG(partials), __local real* scratch) {
  real pq = R_ZERO;
  FOR_EACH_ELEMENT(i, n, chunk) pq = R_MAD(VEC_LOAD(p, i), PRECONDITIONED_LOAD(q, i), pq);
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}

// Step 2. A p'q that is not positive (A not SPD) or not finite leaves x and r unchanged (alpha = 0);
// the host sees p'q in s[2] and stops. `join` (not 0): this step ends a group of the solution's steps
// (solver/grouped_solution.hpp): x is the sum d of the group's steps, and d joins the solution `into`
// in the same pass: into += d + alpha p; d = 0, with the roundings of the step into d followed by
// into += d. (As an AXPY and a fill of their own every 32 iterations, the join cost the launch-bound
// small systems 3-6 us an iteration on an H100, 2026-12-08.) Otherwise `into` is not read.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_update_xr(
    const int n, const int chunk, const int rho_slot, const int pq_count, CVEC_ARG(pq_partials), VEC_ARG(s), CVEC_ARG(p),
    CVEC_ARG(q), VEC_ARG(x), VEC_ARG(r), VEC_ARG(rr_partials), VEC_ARG(into), const int join SINGLE_COPY_ARG(r_single),
    __local real* scratch) {
  const real pq = sum_partials(0, pq_count, VEC_PASS(pq_partials), scratch);
  const real rho = VEC_LOAD(s, rho_slot);
  const bool usable = R_POSITIVE_FINITE(pq);
  const real alpha = usable ? R_DIV(rho, pq) : R_ZERO;
  if (get_global_id(0) == 0) VEC_STORE(s, 2, pq);
  real rr = R_ZERO;
  FOR_EACH_ELEMENT(i, n, chunk) {
    const real xi = R_MAD(alpha, VEC_LOAD(p, i), VEC_LOAD(x, i));
    if (join) {
      VEC_STORE(into, i, R_ADD(VEC_LOAD(into, i), xi));
      VEC_STORE(x, i, R_ZERO);
    } else {
      VEC_STORE(x, i, xi);
    }
    const real ri = R_SUB(VEC_LOAD(r, i), R_MUL(alpha, VEC_LOAD(q, i)));
    VEC_STORE(r, i, ri);
    SINGLE_COPY_STORE(r_single, i, ri);
    rr = R_MAD(ri, ri, rr);
  }
  rr = group_sum(rr, scratch);
  if (get_local_id(0) == 0) VEC_STORE(rr_partials, get_group_id(0), rr);
}

// Step 3: rho_new = r'r goes to slot 1 - rho_slot, written once by work-item 0.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_update_p(
    const int n, const int chunk, const int rho_slot, const int rr_count, CVEC_ARG(rr_partials), VEC_ARG(s), CVEC_ARG(r),
    VEC_ARG(p), __local real* scratch) {
  const real rr = sum_partials(0, rr_count, VEC_PASS(rr_partials), scratch);
  const real beta = R_DIV(rr, VEC_LOAD(s, rho_slot));
  FOR_EACH_ELEMENT(i, n, chunk) VEC_STORE(p, i, R_MAD(beta, VEC_LOAD(p, i), VEC_LOAD(r, i)));
  if (get_global_id(0) == 0) VEC_STORE(s, 1 - rho_slot, rr);
}

// Step 3 of PCG: rho_new = r'z goes to slot 1 - rho_slot and r'r (summed from step 2's partials) to
// s[3], both written once by work-item 0.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_update_p_preconditioned(
    const int n, const int chunk, const int rho_slot, const int count, CVEC_ARG(rz_partials), CVEC_ARG(rr_partials),
    VEC_ARG(s), PRECONDITIONED_ARG(z), VEC_ARG(p), __local real* scratch) {
  const real rz = sum_partials(0, count, VEC_PASS(rz_partials), scratch);
  const real beta = R_DIV(rz, VEC_LOAD(s, rho_slot));
  FOR_EACH_ELEMENT(i, n, chunk) VEC_STORE(p, i, R_MAD(beta, VEC_LOAD(p, i), PRECONDITIONED_LOAD(z, i)));
  const real rr = sum_partials(0, count, VEC_PASS(rr_partials), scratch);
  if (get_global_id(0) == 0) {
    VEC_STORE(s, 1 - rho_slot, rz);
    VEC_STORE(s, 3, rr);
  }
}
