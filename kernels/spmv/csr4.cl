// CSR4 SpMV, y = alpha*A*x + beta*y: CSR with every row padded to a multiple of 4 entries, read four at
// a time (int4 indices, four values per vload4; quasi-double: four heads and four tails). One work-item
// per row, or a block of rows per work-item on CPUs. Also HYB's overflow part (hyb.cl).
#include "spmv/spmv_common.cl"

// Entries [4*begin4, 4*end4) of a row; padding (value 0, a valid column) adds a zero product.
inline acc_t csr4_row_sum(const int begin4, const int end4, __global const int* cols, MVAL_ARG(val),
                          CVEC_ARG(x)) {
  // One partial sum per lane: four independent chains of additions (see csr_row_sum in csr.cl).
  acc_t a0 = ACC_ZERO, a1 = ACC_ZERO, a2 = ACC_ZERO, a3 = ACC_ZERO;
  for (int k4 = begin4; k4 < end4; ++k4) {
    const int4 c = vload4(k4, cols);
    const real4 v = MVAL_LOAD4(val, k4);
    a0 = acc_add(a0, REAL4_S0(v), VEC_LOAD(x, c.s0));
    a1 = acc_add(a1, REAL4_S1(v), VEC_LOAD(x, c.s1));
    a2 = acc_add(a2, REAL4_S2(v), VEC_LOAD(x, c.s2));
    a3 = acc_add(a3, REAL4_S3(v), VEC_LOAD(x, c.s3));
  }
  return acc_merge(acc_merge(a0, a1), acc_merge(a2, a3));
}

__kernel void spmv_csr4(const int rows, const int rows_per_item, __global const int* row_offsets,
                        __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha),
                        REAL_ARG(beta), VEC_ARG(y) SPMV_EPILOGUE_ARGS) {
  const int2 range = row_range(rows, rows_per_item);
  if (range.x == range.y) return;
  int begin4 = row_offsets[range.x] / 4;  // offsets are multiples of 4
  for (int row = range.x; row < range.y; ++row) {
    const int end4 = row_offsets[row + 1] / 4;
    const acc_t s = csr4_row_sum(begin4, end4, cols, MVAL_PASS(val), VEC_PASS(x));
    SPMV_STORE(y, row, alpha, beta, acc_value(s));
    begin4 = end4;
  }
}
