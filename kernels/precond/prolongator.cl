// The prolongators of smoothed aggregation on the device for one near-null-space vector B (block size
// 1, the constant on the finest level): the tentative prolongator, one entry per aggregated node,
// B's restriction to each aggregate normalised (the host's Gram-Schmidt of a single column), and the
// last step of the smoothing, P = P_tent - omega D_F^-1 (A_F P_tent), after galerkin.cl has computed
// A_F P_tent on P's pattern. One work-item per node, aggregate or row; double precision.
#include "common.cl"

// counts[i] = 1 for a node in an aggregate, 0 for one left out: their prefix sums are P_tent's rows.
__kernel void tentative_row_lengths(const int rows, __global const int* aggregate, __global int* counts) {
  const int i = (int)get_global_id(0);
  if (i < rows) counts[i] = aggregate[i] >= 0;
}

__kernel void tentative_columns(const int rows, __global const int* aggregate, __global const int* p_offsets,
                                __global int* p_cols) {
  const int i = (int)get_global_id(0);
  if (i < rows && aggregate[i] >= 0) p_cols[p_offsets[i]] = aggregate[i];
}

// norm[a] = ||B restricted to aggregate a||, summed over its members in ascending order (the rows of
// P_tent^T, sorted): the host's order, so the same bits. It is the coarse level's B.
__kernel void aggregate_norms(const int aggregates, __global const int* m_offsets, __global const int* members,
                              __global const double* B, __global double* norm) {
  const int a = (int)get_global_id(0);
  if (a >= aggregates) return;
  double sum = 0.0;
  for (int k = m_offsets[a]; k < m_offsets[a + 1]; ++k) {
    const double v = B[members[k]];
    sum += v * v;
  }
  norm[a] = sqrt(sum);
}

__kernel void tentative_values(const int rows, __global const int* aggregate, __global const double* B,
                               __global const double* norm, __global const int* p_offsets, __global double* p_values) {
  const int i = (int)get_global_id(0);
  if (i < rows && aggregate[i] >= 0) p_values[p_offsets[i]] = B[i] / norm[aggregate[i]];
}

// On entry P holds A_F P_tent; on exit P_tent - (omega / d_i) A_F P_tent, d_i = A_F's diagonal entry
// (a row without one keeps P_tent's entries). The host's finish_smoothing, operation for operation.
__kernel void smoothing_finish(const int rows, const double omega, __global const int* f_offsets,
                               __global const int* f_cols, __global const double* f_values,
                               __global const int* t_offsets, __global const int* t_cols,
                               __global const double* t_values, __global const int* p_offsets,
                               __global const int* p_cols, __global double* p_values) {
  const int i = (int)get_global_id(0);
  if (i >= rows) return;
  double diagonal = 0.0;
  for (int k = f_offsets[i]; k < f_offsets[i + 1]; ++k)
    if (f_cols[k] == i) diagonal = f_values[k];
  const double scale = diagonal != 0.0 ? omega / diagonal : 0.0;
  int t = t_offsets[i];
  const int t_end = t_offsets[i + 1];
  for (int k = p_offsets[i]; k < p_offsets[i + 1]; ++k) {
    const int col = p_cols[k];
    while (t < t_end && t_cols[t] < col) ++t;  // both rows ascending: one merge pass
    const double tentative = t < t_end && t_cols[t] == col ? t_values[t] : 0.0;
    p_values[k] = tentative - scale * p_values[k];
  }
}
