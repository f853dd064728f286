// A matrix stored as CSR4, ELL or HYB copied into plain CSR on the device, for the AMG setup's kernels,
// which read CSR (the finest level keeps its own format for the V-cycle's SpMVs). The input is an ELL
// part (width 0 when absent; padding has column -1) and a CSR-like part (null offsets when absent)
// whose rows are padded with repeats of their last column (CSR4): an entry whose column is not above
// the one before it in that part is padding. One work-item per row, two passes: the row lengths, and
// after their prefix sum the entries. Double values.
#include "common.cl"

// Calls ENTRY(col, value) for every stored entry of row `row`, in column order.
#define FOR_EACH_ENTRY(ENTRY)                                                  \
  for (int w = 0; w < ell_width; ++w) {                                        \
    const int slot = w * ell_pitch + row;                                      \
    if (ell_cols[slot] < 0) break;                                             \
    ENTRY(ell_cols[slot], ell_values[slot]);                                   \
  }                                                                            \
  if (a_offsets != 0) {                                                        \
    for (int k = a_offsets[row]; k < a_offsets[row + 1]; ++k) {                \
      if (k > a_offsets[row] && a_cols[k] <= a_cols[k - 1]) break;             \
      ENTRY(a_cols[k], a_values[k]);                                           \
    }                                                                          \
  }

__kernel void csr_view_lengths(const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
                               __global const double* ell_values, __global const int* a_offsets,
                               __global const int* a_cols, __global const double* a_values, __global int* lengths) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  int length = 0;
#define COUNT(col, value) ++length
  FOR_EACH_ENTRY(COUNT)
#undef COUNT
  lengths[row] = length;
}

__kernel void csr_view_fill(const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
                            __global const double* ell_values, __global const int* a_offsets,
                            __global const int* a_cols, __global const double* a_values,
                            __global const int* offsets, __global int* cols, __global double* values) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  int out = offsets[row];
#define COPY(col, value) \
  cols[out] = (col);     \
  values[out++] = (value)
  FOR_EACH_ENTRY(COPY)
#undef COPY
}
