// Step 1 of the fused CG (cg.cl) for DIA: q = A p and the per-work-group partial sums of p'q, walking the
// rows as cg.cl walks them (grid-stride on GPUs, contiguous chunks on CPUs, there in dia.cl's tiles
// with -DDIA_TILE). Steps 2 and 3 are cg.cl's.
#include "solver/cg.cl"
#include "spmv/dia.cl"

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_spmv_dia_dot(
    const int rows, const int chunk, const int cols, const int diagonals, const int pitch, __global const int* offsets,
    CVEC_ARG(val), CVEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), __local real* scratch) {
  real pq = R_ZERO;
#if defined(CG_CHUNKED)
  const int begin = min((int)get_global_id(0) * chunk, rows), end = min(begin + chunk, rows);
  FOR_EACH_DIA_ROW_SUM(begin, end, cols, diagonals, pitch, offsets, val, p, row, sum, {
    const real s = acc_value(sum);
    VEC_STORE(q, row, s);
    pq = R_MAD(VEC_LOAD(p, row), s, pq);
  })
#else
  FOR_EACH_ELEMENT(row, rows, chunk) {
    const real s = acc_value(dia_row_sum(row, cols, diagonals, pitch, offsets, VEC_PASS(val), VEC_PASS(p)));
    VEC_STORE(q, row, s);
    pq = R_MAD(VEC_LOAD(p, row), s, pq);
  }
#endif
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}
