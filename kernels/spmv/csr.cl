// CSR SpMV, y = alpha*A*x + beta*y: the scalar kernel (one work-item per row, or a block of rows per
// work-item on CPUs) and the vector kernel (a group of `lanes` work-items per row, reduced in local
// memory), chosen per matrix from its mean row length by src/blas/spmv.cpp.
#include "spmv/spmv_common.cl"

#ifndef ROW_CHAINS
#define ROW_CHAINS 4
#endif

// -DROW_CHAINS=4 (SpmvParams::row_sum_chains): four independent partial sums. A single running sum is
// one long chain of dependent additions, so a CPU waits the adder's latency (about four cycles) per
// entry; four chains keep its pipeline full. On PoCL this made CG's SpMV 1.3x faster on the
// SuiteSparse matrices of docs/benchmarks.md (eight chains were slower again). A GPU hides the
// latency with other rows' work-items instead, and may prefer the plain loop (ROW_CHAINS=1).
inline acc_t csr_row_sum(const offset_t begin, const offset_t end, __global const int* cols, MVAL_ARG(val),
                         CVEC_ARG(x)) {
#if ROW_CHAINS == 1
  return strided_row_sum(ACC_ZERO, begin, end, 1, cols, MVAL_PASS(val), VEC_PASS(x));
#else
  acc_t a0 = ACC_ZERO, a1 = ACC_ZERO, a2 = ACC_ZERO, a3 = ACC_ZERO;
  offset_t k = begin;
  for (; k + 4 <= end; k += 4) {
    a0 = acc_add(a0, MVAL_LOAD(val, k), VEC_LOAD(x, COL_LOAD(cols, k)));
    a1 = acc_add(a1, MVAL_LOAD(val, k + 1), VEC_LOAD(x, COL_LOAD(cols, k + 1)));
    a2 = acc_add(a2, MVAL_LOAD(val, k + 2), VEC_LOAD(x, COL_LOAD(cols, k + 2)));
    a3 = acc_add(a3, MVAL_LOAD(val, k + 3), VEC_LOAD(x, COL_LOAD(cols, k + 3)));
  }
  a0 = strided_row_sum(a0, k, end, 1, cols, MVAL_PASS(val), VEC_PASS(x));  // the last 0-3 entries
  return acc_merge(acc_merge(a0, a1), acc_merge(a2, a3));
#endif
}

__kernel void spmv_csr_scalar(const int rows, const int rows_per_item, __global const offset_t* row_offsets,
                              __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha),
                              REAL_ARG(beta), VEC_ARG(y) SPMV_EPILOGUE_ARGS) {
  const int2 range = row_range(rows, rows_per_item);
  if (range.x == range.y) return;
  // Each row's end offset is the next row's begin: read it once.
  offset_t begin = row_offsets[range.x];
  for (int row = range.x; row < range.y; ++row) {
    const offset_t end = row_offsets[row + 1];
    const acc_t s = csr_row_sum(begin, end, cols, MVAL_PASS(val), VEC_PASS(x));
    SPMV_STORE(y, row, alpha, beta, acc_value(s));
    begin = end;
  }
}

// Work-group of L work-items = L/lanes rows; lane j of a row sums entries j, j + lanes, ... (neighbouring
// lanes read neighbouring entries: coalesced on GPUs), then the row's `lanes` partial sums are reduced
// in `partial` (L elements of local memory) with barriers only, as OpenCL 1.2 has no sub-groups.
// `lanes` is a power of two dividing the work-group size (checked by the host).
__kernel void spmv_csr_vector(const int rows, const int lanes, __global const offset_t* row_offsets,
                              __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha),
                              REAL_ARG(beta), VEC_ARG(y), __local acc_t* partial SPMV_EPILOGUE_ARGS) {
  const int lid = (int)get_local_id(0);
  const int lane = lid & (lanes - 1);
  const size_t row_in_grid = get_group_id(0) * (get_local_size(0) / lanes) + lid / lanes;
  const int row = row_in_grid < (size_t)rows ? (int)row_in_grid : -1;  // -1: past the end, no row

  acc_t acc = ACC_ZERO;
  if (row >= 0)
    acc = strided_row_sum(acc, row_offsets[row] + lane, row_offsets[row + 1], lanes, cols, MVAL_PASS(val),
                          VEC_PASS(x));
  partial[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = lanes / 2; span > 0; span /= 2) {
    if (lane < span) partial[lid] = acc_merge(partial[lid], partial[lid + span]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && row >= 0) SPMV_STORE(y, row, alpha, beta, acc_value(partial[lid]));
}
