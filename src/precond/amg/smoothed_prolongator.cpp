// The filtered matrix, the damping from its Gershgorin bound, and P = P_tent - omega D_F^-1 (A_F P_tent).
#include "smoothed_prolongator.hpp"

#include <algorithm>

#include "../../runtime/large_vectors.hpp"
#include "../spectrum.hpp"
#include "sparse_products.hpp"

namespace clkr::detail::amg {
namespace {

// A_F's values from A's: kept entries as they are, the others added onto the row's diagonal entry.
void filtered_values(const HostCsrMatrix& A, const std::vector<char>& keep, HostCsrMatrix& F) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double lumped = 0;
    std::int32_t out = F.row_offsets[i], diagonal = -1;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      if (!keep[k]) {
        lumped += A.values[k];
        continue;
      }
      if (A.col_indices[k] == i) diagonal = out;
      F.values[out++] = A.values[k];
    }
    if (diagonal >= 0) F.values[diagonal] += lumped;
  }
}

// P = P_tent - omega D_F^-1 P, where P holds A_F P_tent on entry.
void finish_smoothing(const HostCsrMatrix& F, const HostCsrMatrix& P_tent, double omega, HostCsrMatrix& P) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < P.rows; ++i) {
    double diagonal = 0;
    for (std::int64_t k = F.row_offsets[i]; k < F.row_offsets[i + 1]; ++k)
      if (F.col_indices[k] == i) diagonal = F.values[k];
    const double scale = diagonal != 0 ? omega / diagonal : 0.0;
    const auto t_begin = P_tent.col_indices.begin() + P_tent.row_offsets[i];
    const auto t_end = P_tent.col_indices.begin() + P_tent.row_offsets[i + 1];
    for (std::int64_t k = P.row_offsets[i]; k < P.row_offsets[i + 1]; ++k) {
      const auto at = std::lower_bound(t_begin, t_end, P.col_indices[k]);
      const double tentative =
          at != t_end && *at == P.col_indices[k] ? P_tent.values[at - P_tent.col_indices.begin()] : 0.0;
      P.values[k] = tentative - scale * P.values[k];
    }
  }
}

}  // namespace

SmoothedProlongator smooth_prolongator(const HostCsrMatrix& A, const std::vector<char>& keep,
                                       const HostCsrMatrix& P_tent, double relaxation) {
  SmoothedProlongator s;
  // Plain (unsmoothed) aggregation: P is the tentative prolongator itself, one entry per row for a
  // constant near-null space, so neither A_F nor the product A_F P_tent is made, and the coarse
  // operators keep the sparsity of aggregated blocks of A.
  if (relaxation == 0) {
    s.P = P_tent;
    return s;
  }
  HostCsrMatrix& F = s.filtered;
  F.rows = A.rows;
  F.cols = A.cols;
  assign_large(F.row_offsets, static_cast<std::size_t>(A.rows) + 1, std::int64_t{0});
  for (std::int32_t i = 0; i < A.rows; ++i) {
    std::int32_t kept = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) kept += keep[k] ? 1 : 0;
    F.row_offsets[i + 1] = F.row_offsets[i] + kept;
  }
  resize_large(F.col_indices, static_cast<std::size_t>(F.row_offsets.back()));
  resize_large(F.values, F.col_indices.size());
  for (std::int32_t i = 0; i < A.rows; ++i) {
    std::int32_t out = F.row_offsets[i];
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (keep[k]) F.col_indices[out++] = A.col_indices[k];
  }
  filtered_values(A, keep, F);
  s.rho = gershgorin_bound(F);
  s.omega = s.rho > 0 ? relaxation * (4.0 / 3.0) / s.rho : 0.0;
  s.P = multiply(F, P_tent);
  finish_smoothing(F, P_tent, s.omega, s.P);
  return s;
}

void smooth_prolongator_values(const HostCsrMatrix& A, const std::vector<char>& keep, const HostCsrMatrix& P_tent,
                               double relaxation, SmoothedProlongator& s) {
  filtered_values(A, keep, s.filtered);
  s.rho = gershgorin_bound(s.filtered);
  s.omega = s.rho > 0 ? relaxation * (4.0 / 3.0) / s.rho : 0.0;
  multiply_values(s.filtered, P_tent, s.P);
  finish_smoothing(s.filtered, P_tent, s.omega, s.P);
}

}  // namespace clkr::detail::amg
