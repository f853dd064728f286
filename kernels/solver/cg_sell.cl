// Step 1 of the fused CG (cg.cl) for SELL-C-sigma: q = A p and the per-work-group partial sums of p'q,
// walking the sorted rows as cg.cl walks rows (grid-stride on GPUs, contiguous chunks on CPUs); sorted
// row r is row rows[r] of q and p. Steps 2 and 3 are cg.cl's.
#include "solver/cg.cl"
#include "spmv/sell.cl"

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_spmv_sell_dot(
    const int rows, const int chunk, const int height, __global const int* slice_offsets,
    __global const int* row_order, __global const int* cols, CVEC_ARG(val), CVEC_ARG(p), VEC_ARG(q),
    VEC_ARG(partials), __local real* scratch) {
  real pq = R_ZERO;
  FOR_EACH_ELEMENT(r, rows, chunk) {
    const real s = acc_value(sell_row_sum(r, height, slice_offsets, cols, VEC_PASS(val), VEC_PASS(p)));
    const int row = row_order[r];
    VEC_STORE(q, row, s);
    pq = R_MAD(VEC_LOAD(p, row), s, pq);
  }
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}
