// A V- or W-cycle computed on the host in long double from a HostHierarchy, as src/precond/amg/cycle.cpp and
// src/precond/relaxation.cpp document it: the reference the AMG tests compare M^-1 r against, and the
// relative error they measure against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "amg_test_support.hpp"
#include "clkr/precond/amg.hpp"
#include "precond/amg/hierarchy.hpp"

namespace clkr::test {

using detail::amg::HostHierarchy;
using Vec = std::vector<long double>;

// The inverse of A's node-block diagonal (AmgOptions::block_smoothing), by Gauss-Jordan elimination in
// long double on each node's dense block; empty (rows 0) where every node is a single unknown, as the
// smoothers then scale by the diagonal.
inline HostCsrMatrix reference_node_block_inverse(const HostCsrMatrix& A, const detail::amg::NodeLayout& nodes) {
  HostCsrMatrix B;
  if (nodes.largest() <= 1) return B;
  B.rows = B.cols = A.rows;
  for (std::int32_t k = 0; k < nodes.count(); ++k) {
    const std::int32_t s = nodes.offsets[k], m = nodes.offsets[k + 1] - s;
    std::vector<long double> a(static_cast<std::size_t>(m) * 2 * m, 0.0L);  // [block | I]
    for (std::int32_t i = 0; i < m; ++i) {
      for (std::int64_t p = A.row_offsets[s + i]; p < A.row_offsets[s + i + 1]; ++p)
        if (A.col_indices[p] >= s && A.col_indices[p] < s + m) a[i * 2 * m + (A.col_indices[p] - s)] = A.values[p];
      a[i * 2 * m + m + i] = 1;
    }
    for (std::int32_t c = 0; c < m; ++c) {
      std::int32_t pivot = c;
      for (std::int32_t i = c + 1; i < m; ++i)
        if (std::fabs(a[i * 2 * m + c]) > std::fabs(a[pivot * 2 * m + c])) pivot = i;
      for (std::int32_t j = 0; j < 2 * m; ++j) std::swap(a[c * 2 * m + j], a[pivot * 2 * m + j]);
      const long double d = a[c * 2 * m + c];
      for (std::int32_t j = 0; j < 2 * m; ++j) a[c * 2 * m + j] /= d;
      for (std::int32_t i = 0; i < m; ++i) {
        if (i == c) continue;
        const long double f = a[i * 2 * m + c];
        for (std::int32_t j = 0; j < 2 * m; ++j) a[i * 2 * m + j] -= f * a[c * 2 * m + j];
      }
    }
    for (std::int32_t i = 0; i < m; ++i) {
      for (std::int32_t j = 0; j < m; ++j) {
        B.col_indices.push_back(s + j);
        B.values.push_back(static_cast<double>(a[i * 2 * m + m + j]));
      }
      B.row_offsets.push_back(static_cast<std::int64_t>(B.col_indices.size()));
    }
  }
  return B;
}

// One smoothing sweep sequence on the host, as src/precond/relaxation.cpp documents it; with `blocks`
// (rows > 0: reference_node_block_inverse) the residual is scaled by them instead of the diagonal.
struct ReferenceSmoother {
  const HostCsrMatrix& A;
  const std::vector<double>& diagonal;
  const AmgOptions& options;
  double lambda_max;
  HostCsrMatrix blocks = {};

  // D^-1 r, or B^-1 r.
  Vec scaled(const Vec& r) const {
    if (blocks.rows > 0) return multiply(blocks, r);
    Vec z(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) z[i] = r[i] / diagonal[i];
    return z;
  }

  void apply(const Vec& b, Vec& x, bool x_is_zero, int sweeps) const {
    const std::size_t n = b.size();
    for (int s = 0; s < sweeps; ++s) {
      const bool zero = x_is_zero && s == 0;
      Vec r = b;
      if (!zero) {
        const Vec ax = multiply(A, x);
        for (std::size_t i = 0; i < n; ++i) r[i] -= ax[i];
      }
      if (options.smoother == AmgSmoother::Jacobi) {
        const long double w = options.jacobi_weight > 0 ? options.jacobi_weight : 4.0L / (3.0L * lambda_max);
        const Vec z = scaled(r);
        for (std::size_t i = 0; i < n; ++i) x[i] = (zero ? 0.0L : x[i]) + w * z[i];
        continue;
      }
      // Chebyshev4: Lottes' fourth-kind steps, d = 4/(3 upper) D^-1 r, then
      // d = (2k-1)/(2k+3) d + (8k+4)/((2k+3) upper) D^-1 r.
      const bool fourth = options.smoother == AmgSmoother::Chebyshev4;
      const long double upper = lambda_max, lower = options.chebyshev_lower_ratio * upper;
      const long double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
      long double rho = 1 / sigma;
      Vec d(n);
      const Vec z = scaled(r);
      for (std::size_t i = 0; i < n; ++i) {
        d[i] = z[i] * (fourth ? 4 / (3 * upper) : 1 / theta);
        x[i] = (zero ? 0.0L : x[i]) + d[i];
      }
      for (int k = 1; k < options.chebyshev_degree; ++k) {
        const Vec ad = multiply(A, d);
        for (std::size_t i = 0; i < n; ++i) r[i] -= ad[i];
        const long double rho_next = 1 / (2 * sigma - rho);
        const long double c1 = fourth ? (2.0L * k - 1) / (2.0L * k + 3) : rho_next * rho;
        const long double c2 = fourth ? (8.0L * k + 4) / ((2.0L * k + 3) * upper) : 2 * rho_next / delta;
        const Vec zr = scaled(r);
        for (std::size_t i = 0; i < n; ++i) {
          d[i] = c1 * d[i] + c2 * zr[i];
          x[i] += d[i];
        }
        rho = rho_next;
      }
    }
  }
};

// One cycle on level l from x (x_is_zero: from 0), as VCycle::cycle: level l visits level l + 1
// options.cycle_index times (once when l + 1 is the coarsest, whose solve is exact).
inline void reference_cycle(const HostHierarchy& h, const std::vector<AmgLevelInfo>& info, const AmgOptions& options,
                            std::size_t l, const Vec& b, Vec& x, bool zero) {
  if (l + 1 == h.size()) {
    x = multiply(h.coarsest_inverse().inverse, b);
    return;
  }
  const auto& level = h.level(l);
  const ReferenceSmoother smoother{*level.A, level.diagonal, options, info[l].lambda_max,
                                   options.block_smoothing == AmgOptions::BlockSmoothing::On
                                       ? reference_node_block_inverse(*level.A, level.nodes)
                                       : HostCsrMatrix{}};
  if (zero) x.assign(b.size(), 0.0L);
  if (options.pre_sweeps > 0) {
    smoother.apply(b, x, zero, options.pre_sweeps);
    zero = false;
  }
  Vec r = b;
  if (!zero) {
    const Vec ax = multiply(*level.A, x);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] -= ax[i];
  }
  const Vec coarse_b = multiply(level.restriction.matrix, r);
  Vec coarse_x;
  const int visits = l + 2 == h.size() ? 1 : options.cycle_index;
  for (int visit = 0; visit < visits; ++visit) reference_cycle(h, info, options, l + 1, coarse_b, coarse_x, visit == 0);
  const Vec correction = multiply(level.smoothed.P, coarse_x);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += correction[i];
  if (options.post_sweeps > 0) smoother.apply(b, x, false, options.post_sweeps);
}

// M^-1 b: one cycle on the finest level from x = 0.
inline Vec reference_cycle(const HostHierarchy& h, const std::vector<AmgLevelInfo>& info, const AmgOptions& options,
                           std::size_t l, const Vec& b) {
  Vec x;
  reference_cycle(h, info, options, l, b, x, true);
  return x;
}

// ||z - z_ref|| / ||z_ref||
inline double relative_error(const std::vector<double>& z, const Vec& ref) {
  long double diff = 0, norm = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    diff += (z[i] - ref[i]) * (z[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return static_cast<double>(std::sqrt(diff / norm));
}

}  // namespace clkr::test
