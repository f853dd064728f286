// HYB SpMV, y = alpha*A*x + beta*y in two passes: spmv_ell (from ell.cl) over the regular part applies
// alpha and beta, then spmv_hyb_overflow adds alpha times the CSR4 overflow of the longer rows.
#include "spmv/ell.cl"
#include "spmv/csr4.cl"

// y[row] += alpha * (overflow row sum), only for rows that have an overflow.
__kernel void spmv_hyb_overflow(const int rows, const int rows_per_item, __global const int* row_offsets,
                                __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha),
                                VEC_ARG(y)) {
  const int2 range = row_range(rows, rows_per_item);
  if (range.x == range.y) return;
  int begin4 = row_offsets[range.x] / 4;
  for (int row = range.x; row < range.y; ++row) {
    const int end4 = row_offsets[row + 1] / 4;
    if (end4 > begin4) {
      const acc_t s = csr4_row_sum(begin4, end4, cols, MVAL_PASS(val), VEC_PASS(x));
      SPMV_ACCUMULATE(y, row, alpha, acc_value(s));
    }
    begin4 = end4;
  }
}
