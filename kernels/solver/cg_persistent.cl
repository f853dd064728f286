// CG in one launch per chunk of iterations: the work-groups of one kernel run the iterations together,
// meeting at grid barriers (an atomic arrival counter) where the fused path (cg.cl) ends a kernel.
// On small systems an iteration of the fused path costs its three launches and the host's round trip,
// not its memory traffic (a 10^4-row matrix is read in about a microsecond from a GPU's L2 cache); here
// a chunk of iterations costs one launch, and an iteration three grid barriers.
//
//   q = A p (LANES work-items per row), partial sums of p'q      | grid barrier
//   alpha = rho / p'q; x += alpha p; r -= alpha q; partial r'r   | grid barrier
//   beta = r'r / rho; rho = r'r; p = r + beta p                  | grid barrier
//   (-DJACOBI: partial r'z too in the second step; beta = r'z / rho, rho = r'z, p = z + beta p)
//
// Rows are dealt to work-groups in blocks of WG / LANES rows (block b to group b mod groups), and a
// group handles the same rows in every step: x, r and q are only ever read by the group that wrote
// them. p and the partial sums are read by other groups, through VEC_LOAD_SHARED.
//
// A grid barrier needs every work-group resident at once. OpenCL does not promise that, so every wait
// is bounded: a group that polls SPIN_LIMIT times aborts the launch, every group leaves at that
// barrier (runtime/grid_barrier.cl), and the host falls back to the fused path
// (src/solver/cg_persistent.cpp). How many groups a compute unit holds depends on the kernel's
// registers and local memory, which OpenCL does not report: before the first launch of a shape with
// more groups than compute units, the host probes it (max_iterations < 0: one grid barrier and nothing
// else) and halves the groups until they all run.
//
// Build options besides the precision: -DWG (work-group size, a power of two), -DLANES (work-items per
// row, a power of two dividing WG), -DSPIN_LIMIT, and -DBALANCED for matrices with very unequal rows:
// the SpMV then takes row blocks of about equal nonzeros in turn (kernels/spmv/csr_balanced.cl: a long
// row shared by the whole work-group) instead of WG / LANES rows at a time, so one long row no longer
// holds up its group. A block's rows are not the rows the group owns in the vector updates then, so q
// and p[row] are read through VEC_LOAD_SHARED as well. -DDIA: the matrix in DIA (spmv/dia.cl, one
// work-item per row: LANES 1) instead of CSR; the rows are dealt out as for CSR. -DJACOBI: PCG with
// M = diag(A), z = inv_diag .* r recomputed where it is needed (never stored): the second step sums r'z
// beside r'r, the third takes beta = r'z / rho and p = z + beta p, and rho is r'z. Two reads of
// inv_diag an iteration, where the fused PCG path launches two kernels more (z, then r'z).
#include "solver/group_reduce.cl"
// Included here, outside the #if blocks: clkr expands each file once, where it is first included, and
// both csr_balanced.cl and dia.cl need it. Its CSR row sums read p, which other groups write, through
// the L2.
#define ROW_X_LOAD VEC_LOAD_SHARED
#include "spmv/spmv_common.cl"
#if defined(BALANCED)
#define BALANCED_X_LOAD VEC_LOAD_SHARED
#include "spmv/csr_balanced.cl"
#define LOAD_Q VEC_LOAD_SHARED
#else
#define LOAD_Q VEC_LOAD
#endif
#if defined(DIA)
#if defined(BALANCED) || (defined(LANES) && LANES != 1)
#error "-DDIA runs one work-item per row: no -DBALANCED, LANES 1"
#endif
#define DIA_X_LOAD VEC_LOAD_SHARED
#include "spmv/dia.cl"
// The matrix arguments: DIA's columns, diagonals, pitch and offsets, or CSR's row offsets and columns.
#define MATRIX_ARGS const int cols, const int diagonals, const int pitch, __global const int* offsets
#else
#define MATRIX_ARGS __global const offset_t *row_offsets, __global const int *cols
#endif

#ifndef LANES
#define LANES 1
#endif
#define ROWS_PER_BLOCK (WG / LANES)
#include "runtime/grid_barrier.cl"  // after ROWS_PER_BLOCK: owned_row deals rows by it

// Up to max_iterations CG iterations on a CSR matrix (DIA with -DDIA). Scalars `s` (reals): s[0] = rho
// = r'r on entry and on exit (-DJACOBI: r'z; after a breakdown on r'z, the r'z that caused it), s[1] =
// the last p'q, s[2 + i] = r'r after the launch's iteration i. `partials` holds 2 * groups reals (p'q,
// then r'r; -DJACOBI 3 * groups: r'z last). A launch that finds the status not RUNNING does
// nothing. max_iterations < 0 is a residency probe: the groups meet at one grid barrier, each polling at
// most -max_iterations times, group 0 sets the status to REACHED if they all arrived, and nothing else
// is read or written.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_persistent(
    const int rows, MATRIX_ARGS, CVEC_ARG(val), VEC_ARG(x),
    VEC_ARG(r), VEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), VEC_ARG(s), volatile __global int* state,
    const int max_iterations, REAL_ARG(stop_rr)
#if defined(JACOBI)
    , CVEC_ARG(inv_diag)
#endif
#if defined(BALANCED)
    , const int blocks, __global const int* first_rows, __local acc_t* products
#endif
) {
  __local real scratch[WG];
  __local int verdict;
  const int lid = (int)get_local_id(0);
  const int group = (int)get_group_id(0), groups = (int)get_num_groups(0);
  const int lane = lid % LANES;
  if (state[STATE_STATUS] != STATUS_RUNNING) return;
  if (max_iterations < 0) {
    if (grid_barrier(state, groups, -max_iterations, &verdict) && group == 0 && lid == 0)
      state[STATE_STATUS] = STATUS_REACHED;
    return;
  }

  real rho = VEC_LOAD(s, 0), pq = R_ZERO;
  int done = 0, status = STATUS_RUNNING, arrivals = 0;
  while (done < max_iterations) {
    // q = A p over the group's blocks; lane 0 of each row keeps p'q's share.
    real pq_part = R_ZERO;
#if defined(BALANCED)
    for (int b = group; b < blocks; b += groups) {
      acc_t sum;
      const int row = balanced_block_sums(first_rows[b], first_rows[b + 1], row_offsets, cols, VEC_PASS(val),
                                          VEC_PASS(p), products, scratch, &sum);
      if (row >= 0) {
        VEC_STORE(q, row, sum);
        pq_part = R_MAD(VEC_LOAD_SHARED(p, row), sum, pq_part);
      }
    }
#else
    for (int block = group; block * ROWS_PER_BLOCK < rows; block += groups) {
      const int row = block * ROWS_PER_BLOCK + lid / LANES;
      real sum = R_ZERO;
#if defined(DIA)
      if (row < rows) sum = acc_value(dia_row_sum(row, cols, diagonals, pitch, offsets, VEC_PASS(val), VEC_PASS(p)));
#else
      if (row < rows)
        sum = acc_value(strided_row_sum(ACC_ZERO, row_offsets[row] + lane, row_offsets[row + 1], LANES, cols,
                                        VEC_PASS(val), VEC_PASS(p)));
#endif
      sum = row_lanes_sum(sum, scratch);
      if (lane == 0 && row < rows) {
        VEC_STORE(q, row, sum);
        pq_part = R_MAD(VEC_LOAD(p, row), sum, pq_part);
      }
    }
#endif
    pq_part = group_sum(pq_part, scratch);
    if (lid == 0) VEC_STORE(partials, group, pq_part);
    arrivals += groups;
    if (!grid_barrier(state, arrivals, SPIN_LIMIT, &verdict)) return;

    // alpha = rho / p'q; x += alpha p; r -= alpha q
    pq = sum_partials(0, groups, VEC_PASS(partials), scratch);
    if (!R_POSITIVE_FINITE(pq)) {
      status = STATUS_BREAKDOWN;
      break;
    }
    const real alpha = R_DIV(rho, pq);
    real rr_part = R_ZERO, rz_part = R_ZERO;
    for (int j = lid;; j += WG) {
      const int i = owned_row(j, group, groups);
      if (i >= rows) break;
      VEC_STORE(x, i, R_MAD(alpha, VEC_LOAD(p, i), VEC_LOAD(x, i)));
      const real ri = R_SUB(VEC_LOAD(r, i), R_MUL(alpha, LOAD_Q(q, i)));
      VEC_STORE(r, i, ri);
      rr_part = R_MAD(ri, ri, rr_part);
#if defined(JACOBI)
      rz_part = R_MAD(ri, R_MUL(VEC_LOAD(inv_diag, i), ri), rz_part);
#endif
    }
    rr_part = group_sum(rr_part, scratch);
    if (lid == 0) VEC_STORE(partials, groups + group, rr_part);
#if defined(JACOBI)
    rz_part = group_sum(rz_part, scratch);
    if (lid == 0) VEC_STORE(partials, 2 * groups + group, rz_part);
#endif
    arrivals += groups;
    if (!grid_barrier(state, arrivals, SPIN_LIMIT, &verdict)) return;

    // beta = r'r / rho; p = r + beta p (every group decides alike: it sums the same partials alike)
    const real rr = sum_partials(groups, groups, VEC_PASS(partials), scratch);
#if defined(JACOBI)
    const real rz = sum_partials(2 * groups, groups, VEC_PASS(partials), scratch);
#else
    const real rz = rr;
#endif
    ++done;
    if (group == 0 && lid == 0) VEC_STORE(s, 1 + done, rr);
    if (!R_FINITE(rr)) {
      status = STATUS_BREAKDOWN;
      break;
    }
    const real beta = R_DIV(rz, rho);
    rho = rz;
    if (R_LESS_EQUAL(rr, stop_rr)) {
      status = STATUS_REACHED;
      break;
    }
#if defined(JACOBI)
    if (!R_POSITIVE_FINITE(rz)) {  // M not positive definite (or r'z lost): the host names it
      status = STATUS_BREAKDOWN;
      break;
    }
#endif
    for (int j = lid;; j += WG) {
      const int i = owned_row(j, group, groups);
      if (i >= rows) break;
#if defined(JACOBI)
      const real zi = R_MUL(VEC_LOAD(inv_diag, i), VEC_LOAD(r, i));
#else
      const real zi = VEC_LOAD(r, i);
#endif
      VEC_STORE(p, i, R_MAD(beta, VEC_LOAD(p, i), zi));
    }
    if (done == max_iterations) break;  // the kernel's end orders p before the next launch
    arrivals += groups;
    if (!grid_barrier(state, arrivals, SPIN_LIMIT, &verdict)) return;
  }
  if (group == 0 && lid == 0) {
    VEC_STORE(s, 0, rho);
    VEC_STORE(s, 1, pq);
    state[STATE_DONE] = done;
    state[STATE_STATUS] = status;
  }
}
