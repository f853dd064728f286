// Strength of connection for one unknown per node on the device (the host's scalar_strength in
// src/precond/amg/strength.cpp, entry for entry): i != j are strongly connected when
// |a_ij| > eps sqrt|a_ii| sqrt|a_jj| (both roots positive). One work-item per row, double precision:
//   strength_roots: root[i] = sqrt|a_ii|;
//   strength_mark: keep[k] = 1 for the diagonal and strong entries (the filtered matrix A_F keeps them),
//     strong_count[i] and kept_count[i] per row, whose prefix sums place the rows below;
//   strength_fill: the strength graph S (strong neighbours, ascending, with the weights
//     (|a_ij| / (root_i root_j))^2) and A_F (kept entries, the others lumped onto the diagonal);
//   filtered_values: A_F's values alone, from new values of A on the kept pattern (the update step).
#include "common.cl"

__kernel void strength_roots(const int rows, __global const int* offsets, __global const int* cols,
                             __global const double* values, __global double* root) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  double diagonal = 0.0;
  for (int k = offsets[row]; k < offsets[row + 1]; ++k)
    if (cols[k] == row) diagonal += values[k];
  root[row] = sqrt(fabs(diagonal));
}

inline bool is_strong(const double value, const double eps, const double root_i, const double root_j) {
  return fabs(value) > eps * root_i * root_j && root_i > 0.0 && root_j > 0.0;
}

__kernel void strength_mark(const int rows, const double eps, __global const int* offsets, __global const int* cols,
                            __global const double* values, __global const double* root, __global uchar* keep,
                            __global int* strong_count, __global int* kept_count) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  int strong = 0, kept = 0;
  for (int k = offsets[row]; k < offsets[row + 1]; ++k) {
    const int j = cols[k];
    const bool diagonal = j == row;
    const bool connected = !diagonal && is_strong(values[k], eps, root[row], root[j]);
    keep[k] = diagonal || connected;
    strong += connected;
    kept += diagonal || connected;
  }
  strong_count[row] = strong;
  kept_count[row] = kept;
}

// Row `row` of A_F's values at f_values + f_offsets[row]: kept entries in order, the lumped sum of the
// others added to the diagonal entry last (the host's summation order).
inline void filtered_row(const int row, __global const int* offsets, __global const int* cols,
                         __global const double* values, __global const uchar* keep, __global const int* f_offsets,
                         __global double* f_values) {
  double lumped = 0.0;
  int out = f_offsets[row], diagonal = -1;
  for (int k = offsets[row]; k < offsets[row + 1]; ++k) {
    if (!keep[k]) {
      lumped += values[k];
      continue;
    }
    if (cols[k] == row) diagonal = out;
    f_values[out++] = values[k];
  }
  if (diagonal >= 0) f_values[diagonal] += lumped;
}

// The row's entries in groups of FILL_GROUP: a group's columns, flags and values are loaded, then the
// roots of its kept columns, then the entries are written in order. A GPU issues in order, so entry by
// entry a work-item waited on three dependent loads per entry (on an H200 the kernel took 5.6 ms of
// jumping3d:256's setup, ten times its bytes; grouped 4.7 ms). A_F's values are filtered_row's, in the
// same order.
#define FILL_GROUP 8
__kernel void strength_fill(const int rows, __global const int* offsets, __global const int* cols,
                            __global const double* values, __global const double* root, __global const uchar* keep,
                            __global const int* s_offsets, __global int* s_neighbours, __global double* s_weights,
                            __global const int* f_offsets, __global int* f_cols, __global double* f_values) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  const int end = offsets[row + 1];
  const double root_i = root[row];
  int s = s_offsets[row], f = f_offsets[row], diagonal = -1;
  double lumped = 0.0;
  for (int k0 = offsets[row]; k0 < end; k0 += FILL_GROUP) {
    int j[FILL_GROUP];
    bool kept[FILL_GROUP];
    double a[FILL_GROUP], root_j[FILL_GROUP];
    for (int u = 0; u < FILL_GROUP; ++u) {
      const bool inside = k0 + u < end;
      j[u] = inside ? cols[k0 + u] : -1;
      kept[u] = inside && keep[k0 + u];
      a[u] = inside ? values[k0 + u] : 0.0;
    }
    for (int u = 0; u < FILL_GROUP; ++u) root_j[u] = kept[u] && j[u] != row ? root[j[u]] : 1.0;
    for (int u = 0; u < FILL_GROUP && k0 + u < end; ++u) {
      if (!kept[u]) {
        lumped += a[u];
        continue;
      }
      if (j[u] == row) diagonal = f;
      f_cols[f] = j[u];
      f_values[f++] = a[u];
      if (j[u] == row) continue;
      const double ratio = fabs(a[u]) / root_i / root_j[u];
      s_neighbours[s] = j[u];
      s_weights[s++] = ratio * ratio;
    }
  }
  if (diagonal >= 0) f_values[diagonal] += lumped;
}

__kernel void filtered_values(const int rows, __global const int* offsets, __global const int* cols,
                              __global const double* values, __global const uchar* keep,
                              __global const int* f_offsets, __global double* f_values) {
  const int row = (int)get_global_id(0);
  if (row < rows) filtered_row(row, offsets, cols, values, keep, f_offsets, f_values);
}
