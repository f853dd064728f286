// DIA SpMV, y = alpha*A*x + beta*y (layout: include/clkr/data/matrix.hpp): one work-item per row, or a
// block of rows per work-item on CPUs (the row kernels' launch). Row i's entry on diagonal d is value
// d*pitch + i, in column i + offsets[d], so neighbouring work-items read neighbouring values and
// neighbouring elements of x (coalesced on GPUs) and no column index is read at all: 8 bytes a stored
// double instead of CSR's 12. The diagonals ascend, so a row's terms are summed in CSR's order. Also
// the fused CG's step (kernels/solver/cg_dia.cl) and the persistent CG's SpMV (cg_persistent.cl with
// -DDIA), which reads x through DIA_X_LOAD.
//
// -DDIA_TILE=T (SpmvParams::dia_tile_rows, CPUs): a work-item walks its block of rows in tiles of T
// rows, diagonal by diagonal, each row's sum in a private array. A diagonal's part of a tile is then a
// run of consecutive values multiplied by a run of consecutive elements of x, which the compiler turns
// into vector loads and arithmetic; row by row, a CPU would make one scalar load from each diagonal's
// stream and wait on one chain of dependent additions per row. Each row still adds its terms in
// ascending diagonal order: the sums are the row walk's, bit for bit.
#include "spmv/spmv_common.cl"

#ifndef DIA_X_LOAD
#define DIA_X_LOAD VEC_LOAD
#endif

// Row `row`'s sum. A slot whose column lies outside the matrix (the ends of a diagonal) is skipped: x
// has no element there. A slot inside it that holds no entry (padding, value 0) adds 0 * x[column], so
// an Inf or NaN in x reaches every row whose diagonals cross its column, not only the rows with an
// entry there as in CSR.
//
// The diagonals go in groups of ROW_GROUP (spmv_common.cl says why), each group's loads issued before
// its additions: entry by entry, in single precision (4-byte loads), the AMG's smoother steps moved
// 3.1 TB/s of the H200's ~4. The terms are still added one by one in ascending diagonal order: the same
// sum, bit for bit.
inline acc_t dia_row_sum(const int row, const int cols, const int diagonals, const int pitch,
                         __global const int* offsets, MVAL_ARG(val), CVEC_ARG(x)) {
  acc_t acc = ACC_ZERO;
  for (int d0 = 0; d0 < diagonals; d0 += ROW_GROUP) {
    real a[ROW_GROUP], v[ROW_GROUP];
    bool inside[ROW_GROUP];
#pragma unroll
    for (int j = 0; j < ROW_GROUP; ++j) {
      const int d = d0 + j;
      const int c = d < diagonals ? row + offsets[d] : -1;
      inside[j] = c >= 0 && c < cols;
      a[j] = R_ZERO;
      v[j] = R_ZERO;
      if (inside[j]) {
        a[j] = MVAL_LOAD(val, d * pitch + row);
        v[j] = DIA_X_LOAD(x, c);
      }
    }
#pragma unroll
    for (int j = 0; j < ROW_GROUP; ++j)
      if (inside[j]) acc = acc_add(acc, a[j], v[j]);
  }
  return acc;
}

#if defined(DIA_TILE)
// The sums of rows first .. first + count - 1 (count <= DIA_TILE) into acc[0 .. count - 1]: each
// diagonal over the tile's rows whose column lies in the matrix.
inline void dia_tile_sums(const int first, const int count, const int cols, const int diagonals, const int pitch,
                          __global const int* offsets, MVAL_ARG(val), CVEC_ARG(x), acc_t* acc) {
  for (int r = 0; r < count; ++r) acc[r] = ACC_ZERO;
  for (int d = 0; d < diagonals; ++d) {
    const int offset = offsets[d];
    const int begin = max(0, -offset - first), end = min(count, cols - offset - first);
    const int k = d * pitch + first, c = first + offset;
    for (int r = begin; r < end; ++r) acc[r] = acc_add(acc[r], MVAL_LOAD(val, k + r), DIA_X_LOAD(x, c + r));
  }
}

// For each row of [begin, end) in turn: `row` and its sum `sum` (an acc_t), then BODY.
#define FOR_EACH_DIA_ROW_SUM(begin, end, cols, diagonals, pitch, offsets, val, x, row, sum, BODY)            \
  {                                                                                                        \
    acc_t tile_[DIA_TILE];                                                                                 \
    for (int first_ = (begin); first_ < (end); first_ += DIA_TILE) {                                       \
      const int count_ = min(DIA_TILE, (end) - first_);                                                    \
      dia_tile_sums(first_, count_, cols, diagonals, pitch, offsets, MVAL_PASS(val), VEC_PASS(x), tile_);  \
      for (int r_ = 0; r_ < count_; ++r_) {                                                                \
        const int row = first_ + r_;                                                                       \
        const acc_t sum = tile_[r_];                                                                       \
        BODY                                                                                               \
      }                                                                                                    \
    }                                                                                                      \
  }
#else
#define FOR_EACH_DIA_ROW_SUM(begin, end, cols, diagonals, pitch, offsets, val, x, row, sum, BODY)          \
  for (int row = (begin); row < (end); ++row) {                                                          \
    const acc_t sum = dia_row_sum(row, cols, diagonals, pitch, offsets, MVAL_PASS(val), VEC_PASS(x));     \
    BODY                                                                                                 \
  }
#endif

__kernel void spmv_dia(const int rows, const int rows_per_item, const int cols, const int diagonals, const int pitch,
                       __global const int* offsets, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha), REAL_ARG(beta),
                       VEC_ARG(y) SPMV_EPILOGUE_ARGS) {
  const int2 range = row_range(rows, rows_per_item);
  FOR_EACH_DIA_ROW_SUM(range.x, range.y, cols, diagonals, pitch, offsets, val, x, row, s,
                       { SPMV_STORE(y, row, alpha, beta, acc_value(s)); })
}
