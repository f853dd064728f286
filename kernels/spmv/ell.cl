// ELL SpMV, y = alpha*A*x + beta*y: entry j of row i at j*pitch + i (column-major), so neighbouring
// work-items (rows) read neighbouring words (coalesced on GPUs); a row ends at its first padding entry
// (column index -1). One work-item per row, or a block of rows per work-item on CPUs. Also HYB's
// regular part (hyb.cl).
#include "spmv/spmv_common.cl"

inline acc_t ell_row_sum(const int row, const int width, const int pitch, __global const int* cols,
                         MVAL_ARG(val), CVEC_ARG(x)) {
  return strided_row_sum(ACC_ZERO, row, row + (long)width * pitch, pitch, cols, MVAL_PASS(val), VEC_PASS(x));
}

__kernel void spmv_ell(const int rows, const int rows_per_item, const int width, const int pitch,
                       __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha),
                       REAL_ARG(beta), VEC_ARG(y) SPMV_EPILOGUE_ARGS) {
  const int2 range = row_range(rows, rows_per_item);
  for (int row = range.x; row < range.y; ++row) {
    const acc_t s = ell_row_sum(row, width, pitch, cols, MVAL_PASS(val), VEC_PASS(x));
    SPMV_STORE(y, row, alpha, beta, acc_value(s));
  }
}
