// Per row of a CSR matrix made on the device (columns ascending): where its diagonal entry is (-1 when
// absent) and the farthest its entries reach from the diagonal, max |i - j| (the first and last
// column, as the columns are sorted). Matrix::from_device_csr reads them back for diagonal() and
// stats() instead of the whole pattern. One work-item per row.
__kernel void csr_row_facts(const int rows, const int cols, __global const int* offsets,
                            __global const int* col_indices, __global int* diagonal_entry, __global int* span) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  const int begin = offsets[row], end = offsets[row + 1];
  int lo = begin, hi = end;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (col_indices[mid] < row)
      lo = mid + 1;
    else
      hi = mid;
  }
  diagonal_entry[row] = row < cols && lo < end && col_indices[lo] == row ? lo : -1;
  span[row] = begin < end ? max(abs(col_indices[begin] - row), abs(col_indices[end - 1] - row)) : 0;
}
