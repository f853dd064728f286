// The transpose of a CSR matrix on the device, for the AMG setup (R = P^T, an aggregate's members):
//   transpose_count: counts[c] = entries in column c (atomic increments; counts zeroed before), whose
//     prefix sum (scan.cl) is A^T's row offsets;
//   transpose_scatter: each row's entries claim slots in their columns' rows of A^T (cursor starts as
//     a copy of those offsets) and write their row index there: in an order the atomics decide, which
//     segment_sort.cl then makes ascending;
//   transpose_values: A^T's values from A's, each entry finding its row in its column's (sorted) row
//     of A^T by bisection: run after the sort, and again whenever A's values change.
// One work-item per entry (count) or per row of A (scatter, values). Double values.
#include "common.cl"

__kernel void transpose_count(const int nnz, __global const int* cols, __global int* counts) {
  const int k = (int)get_global_id(0);
  if (k < nnz) atomic_inc(&counts[cols[k]]);
}

__kernel void transpose_scatter(const int rows, __global const int* offsets, __global const int* cols,
                                __global int* cursor, __global int* t_cols) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  for (int k = offsets[row]; k < offsets[row + 1]; ++k) t_cols[atomic_inc(&cursor[cols[k]])] = row;
}

__kernel void transpose_values(const int rows, __global const int* offsets, __global const int* cols,
                               __global const double* values, __global const int* t_offsets,
                               __global const int* t_cols, __global double* t_values) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  for (int k = offsets[row]; k < offsets[row + 1]; ++k) {
    const int c = cols[k];
    int lo = t_offsets[c], hi = t_offsets[c + 1];
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (t_cols[mid] < row)
        lo = mid + 1;
      else
        hi = mid;
    }
    t_values[lo] = values[k];
  }
}
