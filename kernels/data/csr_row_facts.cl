// What Matrix::from_device_csr needs to know of a CSR matrix made on the device (columns ascending in
// each row), computed there so that only a few numbers cross to the host:
//   csr_row_facts: where each row's diagonal entry is (-1 when absent), and per work-group the
//     shortest and longest row, the empty rows and the farthest reach from the diagonal, max |i - j|
//     (a row's first and last column, as they are sorted): partial[4 g .. 4 g + 3];
//   csr_length_histogram: counts[first + w] = rows of exactly w entries, for w < last, and
//     counts[first + last] the rows of `last` or more (zeroed before), for the HYB width: a fixed size,
//     read back with the partials, which come first in the same buffer.
#ifndef WG
#define WG 256
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void csr_row_facts(
    const int rows, const int cols, __global const int* offsets, __global const int* col_indices,
    __global int* diagonal_entry, __global int* partial) {
  __local int shortest[WG], longest[WG], empty[WG], reach[WG];
  int lo_length = INT_MAX, hi_length = 0, empty_rows = 0, span = 0;
  for (int row = (int)get_global_id(0); row < rows; row += (int)get_global_size(0)) {
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
    lo_length = min(lo_length, end - begin);
    hi_length = max(hi_length, end - begin);
    empty_rows += begin == end;
    if (begin < end) span = max(span, (int)max(abs(col_indices[begin] - row), abs(col_indices[end - 1] - row)));
  }
  const int lid = (int)get_local_id(0);
  shortest[lid] = lo_length;
  longest[lid] = hi_length;
  empty[lid] = empty_rows;
  reach[lid] = span;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = WG / 2; stride > 0; stride /= 2) {
    if (lid < stride) {
      shortest[lid] = min(shortest[lid], shortest[lid + stride]);
      longest[lid] = max(longest[lid], longest[lid + stride]);
      empty[lid] += empty[lid + stride];
      reach[lid] = max(reach[lid], reach[lid + stride]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    const int g = (int)get_group_id(0);
    partial[4 * g] = shortest[0];
    partial[4 * g + 1] = longest[0];
    partial[4 * g + 2] = empty[0];
    partial[4 * g + 3] = reach[0];
  }
}

__kernel void csr_length_histogram(const int rows, const int last, __global const int* offsets,
                                   __global int* counts, const int first) {
  const int row = (int)get_global_id(0);
  if (row < rows) atomic_inc(&counts[first + min(offsets[row + 1] - offsets[row], last)]);
}
