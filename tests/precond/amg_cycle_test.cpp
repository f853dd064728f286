// The AMG preconditioner's application, M^-1 r, against a V-cycle computed on the host in long double
// from an independently built copy of the same hierarchy: every smoother and sweep count, every
// precision, the device and the host backend.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "precond/amg/hierarchy.hpp"

namespace clkr {
namespace {

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
        const Vec ax = test::multiply(A, x);
        for (std::size_t i = 0; i < n; ++i) r[i] -= ax[i];
      }
      if (options.smoother == AmgSmoother::Jacobi) {
        const long double w = options.jacobi_weight > 0 ? options.jacobi_weight : 4.0L / (3.0L * lambda_max);
        for (std::size_t i = 0; i < n; ++i) x[i] = (zero ? 0.0L : x[i]) + w * r[i] / diagonal[i];
        continue;
      }
      const long double upper = lambda_max, lower = options.chebyshev_lower_ratio * upper;
      const long double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
      long double rho = 1 / sigma;
      Vec d(n);
      for (std::size_t i = 0; i < n; ++i) {
        d[i] = r[i] / diagonal[i] / theta;
        x[i] = (zero ? 0.0L : x[i]) + d[i];
      }
      for (int k = 1; k < options.chebyshev_degree; ++k) {
        const Vec ad = test::multiply(A, d);
        for (std::size_t i = 0; i < n; ++i) r[i] -= ad[i];
        const long double rho_next = 1 / (2 * sigma - rho);
        for (std::size_t i = 0; i < n; ++i) {
          d[i] = rho_next * rho * d[i] + 2 * rho_next / delta * r[i] / diagonal[i];
          x[i] += d[i];
        }
        rho = rho_next;
      }
    }
  }
};

Vec reference_cycle(const HostHierarchy& h, const std::vector<AmgLevelInfo>& info, const AmgOptions& options,
                    std::size_t l, const Vec& b) {
  if (l + 1 == h.size()) return test::multiply(h.coarsest_inverse().inverse, b);
  const auto& level = h.level(l);
  const ReferenceSmoother smoother{*level.A, level.diagonal, options, info[l].lambda_max};
  Vec x(b.size(), 0.0L);
  bool zero = true;
  if (options.pre_sweeps > 0) {
    smoother.apply(b, x, true, options.pre_sweeps);
    zero = false;
  }
  Vec r = b;
  if (!zero) {
    const Vec ax = test::multiply(*level.A, x);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] -= ax[i];
  }
  const Vec coarse = reference_cycle(h, info, options, l + 1, test::multiply(level.restriction.matrix, r));
  const Vec correction = test::multiply(level.smoothed.P, coarse);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += correction[i];
  if (options.post_sweeps > 0) smoother.apply(b, x, false, options.post_sweeps);
  return x;
}

// ||z - z_ref|| / ||z_ref||
double relative_error(const std::vector<double>& z, const Vec& ref) {
  long double diff = 0, norm = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    diff += (z[i] - ref[i]) * (z[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return static_cast<double>(std::sqrt(diff / norm));
}

struct Problem {
  const char* name;
  HostCsrMatrix A;
  int block_size;
};

const std::vector<Problem>& problems() {
  static const std::vector<Problem> list = {
      {"poisson3d", poisson3d(12), 1},
      {"jumping", test::jumping_coefficient3d(11, 1e3), 1},
      {"vector", test::vector_laplacian2d(24), 2},
  };
  return list;
}

// (problem, smoother, pre sweeps, post sweeps, precision, location)
using CycleCase = std::tuple<std::size_t, AmgSmoother, int, int, Precision, Location>;
class AmgCycle : public ::testing::TestWithParam<CycleCase> {};

TEST_P(AmgCycle, MatchesTheHostReferenceVCycle) {
  const auto [index, smoother, pre, post, precision, location] = GetParam();
  const Problem& problem = problems()[index];
  const HostCsrMatrix& host = problem.A;
  AmgOptions options;
  options.coarse_size = 40;
  options.block_size = problem.block_size;
  options.smoother = smoother;
  options.pre_sweeps = pre;
  options.post_sweeps = post;
  options.chebyshev_degree = 3;
  auto context = test::amg_context();
  Matrix A(context, host, Format::Csr);
  Blas solver(context, location, Precision::Double);
  const Amg M(solver, A, options, precision);
  ASSERT_GE(M.levels().size(), 3u) << M.description();

  PhaseTimes phases;
  const HostHierarchy h(host, options, detail::amg::near_null_space(options, host.rows), phases);
  ASSERT_EQ(h.size(), M.levels().size());
  for (std::size_t l = 0; l < h.size(); ++l) ASSERT_EQ(h.level(l).A->nnz(), M.levels()[l].nnz) << "level " << l;

  const std::vector<double> r = test::random_values(host.rows, 17);
  Vector rv(context, r, "r"), z(context, host.rows, "z");
  z.assign(std::vector<double>(host.rows, std::nan("")));  // z's old values must not matter
  const_cast<Amg&>(M).apply(rv, z);
  const Vec reference = reference_cycle(h, M.levels(), options, 0, Vec(r.begin(), r.end()));
  // A V-cycle is some tens of SpMVs and updates deep: the precision's unit roundoff times a margin.
  const double tolerance = precision == Precision::Single ? 2e-5 : precision == Precision::QuasiDouble ? 1e-11 : 1e-12;
  EXPECT_LT(relative_error(z.to_host(), reference), tolerance) << M.description();
}

std::vector<CycleCase> cycle_cases() {
  std::vector<CycleCase> cases;
  for (std::size_t p = 0; p < problems().size(); ++p)
    for (AmgSmoother s : {AmgSmoother::Jacobi, AmgSmoother::Chebyshev})
      for (auto [pre, post] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{0, 2}})
        cases.emplace_back(p, s, pre, post, Precision::Double, Location::Device);
  // The other precisions and the host backend (double on the device is above already).
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double})
    for (Location l : {Location::Device, Location::Host})
      if (p != Precision::Double || l != Location::Device) cases.emplace_back(1, AmgSmoother::Chebyshev, 1, 1, p, l);
  return cases;
}

std::string cycle_case_name(const ::testing::TestParamInfo<CycleCase>& info) {
  const auto& [index, smoother, pre, post, precision, location] = info.param;
  return std::string(problems()[index].name) + "_" + to_string(smoother) + "_" + std::to_string(pre) +
         std::to_string(post) + "_" + to_string(precision) + "_" + to_string(location);
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgCycle, ::testing::ValuesIn(cycle_cases()), cycle_case_name);

}  // namespace
}  // namespace clkr
