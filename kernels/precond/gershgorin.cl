// One pass over A for the smoothers of the AMG's update step, whose operators never come to the host:
// Gershgorin's bound on the spectrum of D^-1 A, max_i sum_j |a_ij| / |a_ii| (each work-group reduces
// the maximum over its rows, the host takes the maximum of the groups'), the first row whose diagonal
// is not positive and finite (per group, the host takes the minimum; `rows` when there is none), and,
// when `dinv` is not null, dinv = 1 / diag(A) in double. A comes as an ELL part (width 0 when absent,
// padding column -1) and a CSR part (null offsets when absent), as in galerkin.cl, or as DIA diagonals
// (dia_count 0 when absent; value d*dia_pitch + row, padding 0, so it adds nothing). Double precision.
#include "common.cl"

#ifndef WG
#define WG 256
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gershgorin_partial_max(
    const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
    __global const double* ell_vals, __global const offset_t* a_offsets, __global const int* a_cols,
    __global const double* a_vals, const int dia_count, const int dia_pitch, __global const int* dia_offsets,
    __global const double* dia_vals, __global double* dinv, __global double* partial, __global int* partial_bad) {
  __local double scratch[WG];
  __local int bad_scratch[WG];
  double bound = 0.0;
  int bad = rows;
  for (int row = (int)get_global_id(0); row < rows; row += (int)get_global_size(0)) {
    double sum = 0.0, diagonal = 0.0;
    for (int w = 0; w < ell_width; ++w) {
      const int slot = w * ell_pitch + row;
      const int col = ell_cols[slot];
      if (col < 0) continue;
      sum += fabs(ell_vals[slot]);
      if (col == row) diagonal += ell_vals[slot];
    }
    for (int d = 0; d < dia_count; ++d) {
      const double v = dia_vals[(size_t)d * dia_pitch + row];
      sum += fabs(v);
      if (dia_offsets[d] == 0) diagonal += v;
    }
    if (a_offsets != 0) {
      for (offset_t k = a_offsets[row]; k < a_offsets[row + 1]; ++k) {
        sum += fabs(a_vals[k]);
        if (a_cols[k] == row) diagonal += a_vals[k];
      }
    }
    // Unconditional, with a select: `if (diagonal != 0.0) bound = fmax(...)` made the LLVM 18 of
    // Debian 13's PoCL 6.0 abort the process ("Instruction Combining did not reach a fixpoint").
    bound = fmax(bound, diagonal != 0.0 ? sum / fabs(diagonal) : 0.0);
    // Rows are visited in increasing order: the first bad one a work-item meets is its smallest.
    if (!(diagonal > 0.0 && isfinite(diagonal)) && bad == rows) bad = row;
    if (dinv != 0) dinv[row] = 1.0 / diagonal;
  }
  const int lid = (int)get_local_id(0);
  scratch[lid] = bound;
  bad_scratch[lid] = bad;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = WG / 2; span > 0; span /= 2) {
    if (lid < span) {
      scratch[lid] = fmax(scratch[lid], scratch[lid + span]);
      bad_scratch[lid] = min(bad_scratch[lid], bad_scratch[lid + span]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    partial[get_group_id(0)] = scratch[0];
    partial_bad[get_group_id(0)] = bad_scratch[0];
  }
}
