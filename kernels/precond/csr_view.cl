// A matrix stored as CSR4, ELL, HYB, SELL or DIA copied into plain CSR on the device, for the AMG
// setup's kernels, which read CSR (the finest level keeps its own format for the V-cycle's SpMVs). The
// input is a column-major part (ELL's, width 0 when absent, or SELL's slices; padding has column -1), a
// CSR-like part (null offsets when absent) whose rows are padded with repeats of their last column
// (CSR4): an entry whose column is not above the one before it in that part is padding, and DIA's
// diagonals (null offsets when absent; their values in ell_values at ell_pitch, the ELL width 0): a
// slot is an entry where its presence bit is set. One work-item per stored row, two passes: the row
// lengths, and after their prefix sum the entries. Double values.
//
// SELL (sell_rows not null): work-item r is the r-th row in SELL's sorted order, row sell_rows[r] of
// the matrix; its entries lie in slice r / slice_height from slice_offsets' entry on, slice_height
// apart. ELL: row r's lie ell_pitch apart from slot r.
#include "common.cl"

// Where work-item r's entries lie in the column-major part: the matrix row it stands for (`row`), the
// first slot, the distance between slots and the end of its slice.
#define PLACE_ROW                                                                      \
  int row = r, first = r, stride = ell_pitch, end = ell_width * ell_pitch;             \
  if (sell_rows != 0) {                                                                \
    row = sell_rows[r];                                                                \
    first = sell_slice_offsets[r / slice_height] + r % slice_height;                   \
    stride = slice_height;                                                             \
    end = sell_slice_offsets[r / slice_height + 1];                                    \
  }

// Calls ENTRY(col, value) for every stored entry of `row` (placed by PLACE_ROW), in column order.
#define FOR_EACH_ENTRY(ENTRY)                                                  \
  for (int slot = first; slot < end; slot += stride) {                         \
    if (ell_cols[slot] < 0) break;                                             \
    ENTRY(ell_cols[slot], ell_values[slot]);                                   \
  }                                                                            \
  if (dia_offsets != 0) {                                                      \
    for (int d = 0, slot = row; d < dia_diagonals; ++d, slot += ell_pitch) {   \
      if ((dia_present[slot / 32] >> (slot % 32)) & 1u) {                      \
        ENTRY(row + dia_offsets[d], ell_values[slot]);                         \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  if (a_offsets != 0) {                                                        \
    for (int k = a_offsets[row]; k < a_offsets[row + 1]; ++k) {                \
      if (k > a_offsets[row] && a_cols[k] <= a_cols[k - 1]) break;             \
      ENTRY(a_cols[k], a_values[k]);                                           \
    }                                                                          \
  }

__kernel void csr_view_lengths(const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
                               __global const double* ell_values, __global const int* a_offsets,
                               __global const int* a_cols, __global const double* a_values,
                               __global const int* sell_slice_offsets, __global const int* sell_rows,
                               const int slice_height, __global const int* dia_offsets,
                               __global const uint* dia_present, const int dia_diagonals, __global int* lengths) {
  const int r = (int)get_global_id(0);
  if (r >= rows) return;
  PLACE_ROW
  int length = 0;
#define COUNT(col, value) ++length
  FOR_EACH_ENTRY(COUNT)
#undef COUNT
  lengths[row] = length;
}

__kernel void csr_view_fill(const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
                            __global const double* ell_values, __global const int* a_offsets,
                            __global const int* a_cols, __global const double* a_values,
                            __global const int* sell_slice_offsets, __global const int* sell_rows,
                            const int slice_height, __global const int* dia_offsets,
                            __global const uint* dia_present, const int dia_diagonals,
                            __global const int* offsets, __global int* cols, __global double* values) {
  const int r = (int)get_global_id(0);
  if (r >= rows) return;
  PLACE_ROW
  int out = offsets[row];
#define COPY(col, value) \
  cols[out] = (col);     \
  values[out++] = (value)
  FOR_EACH_ENTRY(COPY)
#undef COPY
}
