// Gershgorin's bound on the spectrum of D^-1 A, max_i sum_j |a_ij| / |a_ii|, on the device (for the
// AMG's update step, whose operators never come to the host): each work-group reduces the maximum over
// its rows, the host takes the maximum of the groups'. A comes as an ELL part (width 0 when absent,
// padding column -1) and a CSR part (null offsets when absent), as in galerkin.cl. Double precision.
#include "common.cl"

#ifndef WG
#define WG 256
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gershgorin_partial_max(
    const int rows, const int ell_width, const int ell_pitch, __global const int* ell_cols,
    __global const double* ell_vals, __global const int* a_offsets, __global const int* a_cols,
    __global const double* a_vals, __global double* partial) {
  __local double scratch[WG];
  double bound = 0.0;
  for (int row = (int)get_global_id(0); row < rows; row += (int)get_global_size(0)) {
    double sum = 0.0, diagonal = 0.0;
    for (int w = 0; w < ell_width; ++w) {
      const int slot = w * ell_pitch + row;
      const int col = ell_cols[slot];
      if (col < 0) continue;
      sum += fabs(ell_vals[slot]);
      if (col == row) diagonal += ell_vals[slot];
    }
    if (a_offsets != 0) {
      for (int k = a_offsets[row]; k < a_offsets[row + 1]; ++k) {
        sum += fabs(a_vals[k]);
        if (a_cols[k] == row) diagonal += a_vals[k];
      }
    }
    if (diagonal != 0.0) bound = fmax(bound, sum / fabs(diagonal));
  }
  const int lid = (int)get_local_id(0);
  scratch[lid] = bound;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = WG / 2; span > 0; span /= 2) {
    if (lid < span) scratch[lid] = fmax(scratch[lid], scratch[lid + span]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
