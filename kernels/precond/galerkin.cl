// The numeric phase of the AMG's Galerkin products on the device, for the update step: C = A B on C's
// pattern, computed at setup and fixed since (the prolongators and every product's pattern are kept;
// only values change). Double precision: built with -DCLKR_DOUBLE, on devices with fp64.
//
// One work-item per row of C: it clears its row, then for each entry a_ik of A's row adds a_ik times
// row k of B, finding each column of B's row in C's (sorted) row by bisection. A comes as an ELL part
// (width 0 when absent; padding has column -1) and a CSR part (null offsets when absent), which covers
// CSR, CSR4 (its padding has value 0), ELL and HYB; B and C are CSR.
#include "common.cl"

// c_vals[col of C's row] += a * B(k, :)
inline void add_scaled_row(const int k, const double a, __global const int* b_offsets, __global const int* b_cols,
                           __global const double* b_vals, const int c_begin, const int c_end,
                           __global const int* c_cols, __global double* c_vals) {
  for (int kb = b_offsets[k]; kb < b_offsets[k + 1]; ++kb) {
    const int col = b_cols[kb];
    int lo = c_begin, hi = c_end;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (c_cols[mid] < col)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < c_end && c_cols[lo] == col) c_vals[lo] += a * b_vals[kb];
  }
}

__kernel void galerkin_multiply(const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
                                __global const double* ell_vals, __global const int* a_offsets,
                                __global const int* a_cols, __global const double* a_vals,
                                __global const int* b_offsets, __global const int* b_cols,
                                __global const double* b_vals, __global const int* c_offsets,
                                __global const int* c_cols, __global double* c_vals) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  const int c_begin = c_offsets[row], c_end = c_offsets[row + 1];
  for (int k = c_begin; k < c_end; ++k) c_vals[k] = 0.0;
  for (int w = 0; w < ell_width; ++w) {
    const int slot = w * ell_pitch + row;
    const int k = ell_cols[slot];
    if (k >= 0) add_scaled_row(k, ell_vals[slot], b_offsets, b_cols, b_vals, c_begin, c_end, c_cols, c_vals);
  }
  if (a_offsets != 0) {
    for (int ka = a_offsets[row]; ka < a_offsets[row + 1]; ++ka)
      add_scaled_row(a_cols[ka], a_vals[ka], b_offsets, b_cols, b_vals, c_begin, c_end, c_cols, c_vals);
  }
}
