// A V- or W-cycle computed on the host in long double from a HostHierarchy, as src/precond/amg/cycle.cpp and
// src/precond/relaxation.cpp document it: the reference the AMG tests compare M^-1 r against, and the
// relative error they measure against it.
#pragma once

#include <cmath>
#include <vector>

#include "amg_test_support.hpp"
#include "clkr/precond/amg.hpp"
#include "precond/amg/hierarchy.hpp"

namespace clkr::test {

using detail::amg::HostHierarchy;
using Vec = std::vector<long double>;

// One smoothing sweep sequence on the host, as src/precond/relaxation.cpp documents it.
struct ReferenceSmoother {
  const HostCsrMatrix& A;
  const std::vector<double>& diagonal;
  const AmgOptions& options;
  double lambda_max;

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
        for (std::size_t i = 0; i < n; ++i) x[i] = (zero ? 0.0L : x[i]) + w * r[i] / diagonal[i];
        continue;
      }
      // Chebyshev4: Lottes' fourth-kind steps, d = 4/(3 upper) D^-1 r, then
      // d = (2k-1)/(2k+3) d + (8k+4)/((2k+3) upper) D^-1 r.
      const bool fourth = options.smoother == AmgSmoother::Chebyshev4;
      const long double upper = lambda_max, lower = options.chebyshev_lower_ratio * upper;
      const long double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
      long double rho = 1 / sigma;
      Vec d(n);
      for (std::size_t i = 0; i < n; ++i) {
        d[i] = r[i] / diagonal[i] * (fourth ? 4 / (3 * upper) : 1 / theta);
        x[i] = (zero ? 0.0L : x[i]) + d[i];
      }
      for (int k = 1; k < options.chebyshev_degree; ++k) {
        const Vec ad = multiply(A, d);
        for (std::size_t i = 0; i < n; ++i) r[i] -= ad[i];
        const long double rho_next = 1 / (2 * sigma - rho);
        const long double c1 = fourth ? (2.0L * k - 1) / (2.0L * k + 3) : rho_next * rho;
        const long double c2 = fourth ? (8.0L * k + 4) / ((2.0L * k + 3) * upper) : 2 * rho_next / delta;
        for (std::size_t i = 0; i < n; ++i) {
          d[i] = c1 * d[i] + c2 * r[i] / diagonal[i];
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
  const ReferenceSmoother smoother{*level.A, level.diagonal, options, info[l].lambda_max};
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
