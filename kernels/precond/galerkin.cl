// The numeric phase of the AMG's Galerkin products on the device, for the update step: C = A B on C's
// pattern, computed at setup and fixed since (the prolongators and every product's pattern are kept;
// only values change). Double precision: built with -DCLKR_DOUBLE, on devices with fp64.
//
// LANES work-items share one row of C (a power of two dividing WG; WG / LANES rows per work-group).
// The row is cleared, then for each entry a_ik of A's row, in order, the lanes split row k of B
// between them: each finds its entries' columns in C's (sorted) row by bisection and adds a_ik b_kj
// there. Within one k the columns are distinct, so the lanes never add to the same entry; a barrier
// between consecutive k's orders their additions, so every entry of C is summed in the order of A's
// row, as with one work-item per row (LANES 1, which needs no barrier): the result is the same to the
// last bit whatever LANES is. The host picks LANES from B's mean row length: the coarse rows of R (A P)
// are long (R's rows span an aggregate's neighbourhood, A P's rows are wide) and one work-item per row
// left most of a GPU's lanes idle and read every row of B uncoalesced.
//
// A comes as an ELL part (width 0 when absent; padding has column -1) and a CSR part (null offsets
// when absent), which covers CSR, CSR4 (its padding has value 0), ELL and HYB, or as DIA diagonals
// (dia_count 0 when absent; value d*dia_pitch + row, 0 where the diagonal holds no entry of the row or
// leaves the matrix: such zeros add nothing and are skipped, as a DIA SpMV's would be); B and C are CSR.
// Reading DIA directly spares the update step the CSR copy of a stencil matrix (0.37 of its 6 ms on
// an H200, poisson3d:128).
#include "common.cl"

#ifndef WG
#define WG 128
#endif
#ifndef LANES
#define LANES 1
#endif
#define ROWS_PER_GROUP (WG / LANES)

// c_vals[col of C's row] += a * B(k, j) for the entries of B's row k that lane `lane` takes.
inline void add_scaled_row(const int k, const double a, const int lane, __global const int* b_offsets,
                           __global const int* b_cols, __global const double* b_vals, const int c_begin,
                           const int c_end, __global const int* c_cols, __global double* c_vals) {
  for (int kb = b_offsets[k] + lane; kb < b_offsets[k + 1]; kb += LANES) {
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

#if LANES > 1
#define BETWEEN_TERMS() barrier(CLK_GLOBAL_MEM_FENCE)
#else
#define BETWEEN_TERMS()
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void galerkin_multiply(
    const int rows, const int b_rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
    __global const double* ell_vals, __global const int* a_offsets, __global const int* a_cols,
    __global const double* a_vals, const int dia_count, const int dia_pitch, __global const int* dia_offsets,
    __global const double* dia_vals, __global const int* b_offsets, __global const int* b_cols,
    __global const double* b_vals, __global const int* c_offsets, __global const int* c_cols,
    __global double* c_vals) {
  const int lane = (int)get_local_id(0) % LANES;
  const int slot = (int)get_local_id(0) / LANES;
  const int row = (int)get_group_id(0) * ROWS_PER_GROUP + slot;
  const bool active = row < rows;
  const int c_begin = active ? c_offsets[row] : 0, c_end = active ? c_offsets[row + 1] : 0;
  for (int k = c_begin + lane; k < c_end; k += LANES) c_vals[k] = 0.0;
  const int a_begin = active && a_offsets != 0 ? a_offsets[row] : 0;
  const int a_length = active && a_offsets != 0 ? a_offsets[row + 1] - a_begin : 0;
#if LANES > 1
  // Every work-item of the group passes the same barriers: the rows loop to the group's longest.
  __local int lengths[ROWS_PER_GROUP];
  if (lane == 0) lengths[slot] = a_length;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);  // also orders the clearing before the sums
  int terms = 0;
  for (int s = 0; s < ROWS_PER_GROUP; ++s) terms = max(terms, lengths[s]);
#else
  const int terms = a_length;
#endif
  for (int w = 0; w < ell_width; ++w) {
    const int at = w * ell_pitch + row;
    const int k = active ? ell_cols[at] : -1;
    if (k >= 0) add_scaled_row(k, ell_vals[at], lane, b_offsets, b_cols, b_vals, c_begin, c_end, c_cols, c_vals);
    BETWEEN_TERMS();
  }
  for (int d = 0; d < dia_count; ++d) {  // ascending offsets: the row's entries in column order
    const int k = row + dia_offsets[d];
    const double a = active && k >= 0 && k < b_rows ? dia_vals[(size_t)d * dia_pitch + row] : 0.0;
    if (a != 0.0) add_scaled_row(k, a, lane, b_offsets, b_cols, b_vals, c_begin, c_end, c_cols, c_vals);
    BETWEEN_TERMS();
  }
  for (int t = 0; t < terms; ++t) {
    if (t < a_length)
      add_scaled_row(a_cols[a_begin + t], a_vals[a_begin + t], lane, b_offsets, b_cols, b_vals, c_begin, c_end,
                     c_cols, c_vals);
    BETWEEN_TERMS();
  }
}
