// SELL-C-sigma SpMV, y = alpha*A*x + beta*y (layout: include/clkr/data/matrix.hpp): one work-item per
// sorted row, or a block of them per work-item on CPUs (the row kernels' launch). Neighbouring
// work-items are neighbouring rows of a slice, whose entries are column-major: coalesced reads on GPUs,
// like ELL's, but each slice only as wide as its own longest row. Sorted row r writes y[rows[r]], so
// x and y stay in the user's order; the fused CG's step (kernels/solver/cg_sell.cl) does the same.
#include "spmv/spmv_common.cl"

// Sorted row r's sum: slice r / C, lane r % C; its entries one slice height apart up to the first
// padding (column -1), which only follows a row's entries.
inline acc_t sell_row_sum(const int r, const int height, __global const int* slice_offsets, __global const int* cols,
                          MVAL_ARG(val), CVEC_ARG(x)) {
  const int slice = r / height;
  return strided_row_sum(ACC_ZERO, slice_offsets[slice] + r % height, slice_offsets[slice + 1], height, cols,
                         MVAL_PASS(val), VEC_PASS(x));
}

__kernel void spmv_sell(const int rows, const int rows_per_item, const int height, __global const int* slice_offsets,
                        __global const int* row_order, __global const int* cols, MVAL_ARG(val), CVEC_ARG(x),
                        REAL_ARG(alpha), REAL_ARG(beta), VEC_ARG(y) SPMV_EPILOGUE_ARGS) {
  const int2 range = row_range(rows, rows_per_item);
  for (int r = range.x; r < range.y; ++r) {
    const acc_t s = sell_row_sum(r, height, slice_offsets, cols, MVAL_PASS(val), VEC_PASS(x));
    SPMV_STORE(y, row_order[r], alpha, beta, acc_value(s));
  }
}
