// The AMG preconditioner's application, M^-1 r, against a V- or W-cycle computed on the host in long
// double from an independently built copy of the same hierarchy: every smoother and sweep count, both
// cycles, every precision, the device and the host backend; and the symmetry PCG relies on.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "../precision_support.hpp"
#include "amg_reference_cycle.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "precond/amg/hierarchy.hpp"

namespace clkr {
namespace {

using detail::amg::HostHierarchy;
using test::reference_cycle;
using test::relative_error;
using test::Vec;

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

// (problem, smoother, pre sweeps, post sweeps, cycle index, precision, location)
using CycleCase = std::tuple<std::size_t, AmgSmoother, int, int, int, Precision, Location>;
class AmgCycle : public ::testing::TestWithParam<CycleCase> {};

TEST_P(AmgCycle, MatchesTheHostReferenceCycle) {
  const auto [index, smoother, pre, post, cycle_index, precision, location] = GetParam();
  const Problem& problem = problems()[index];
  const HostCsrMatrix& host = problem.A;
  AmgOptions options;
  options.coarse_size = 40;
  options.block_size = problem.block_size;
  options.smoother = smoother;
  options.pre_sweeps = pre;
  options.post_sweeps = post;
  options.cycle_index = cycle_index;
  options.chebyshev_degree = 3;
  // The point smoothers (Auto's node blocks are node_block_smoothing_test.cpp's).
  options.block_smoothing = AmgOptions::BlockSmoothing::Off;
  // The host-built hierarchy, which HostHierarchy mirrors aggregate by aggregate (Auto builds on the
  // device on GPUs, with aggregates of its own: device_setup_solve_test.cpp and device_*_test.cpp test that one).
  options.setup_on = AmgOptions::SetupOn::Host;
  auto context = test::amg_context();
  // The hierarchy in double on the device needs fp64; in single or quasi-double it does not, and the
  // solver's Blas (whose precision the cycle does not use) is then quasi-double there.
  if (location == Location::Device) CLKR_SKIP_UNLESS_AVAILABLE(context, precision);
  Matrix A(context, host, Format::Csr);
  const bool double_here = location == Location::Host || test::device_supports(*context, Precision::Double);
  Blas solver(context, location, double_here ? Precision::Double : Precision::QuasiDouble);
  const Amg M(solver, A, options, precision);
  ASSERT_GE(M.levels().size(), 3u) << M.description();

  PhaseTimes times;

  detail::amg::PhaseLog phases(times);
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
  if (cycle_index == 2) {  // the W-cycle is another operator than the V-cycle on these 3+ levels
    AmgOptions v = options;
    v.cycle_index = 1;
    const Vec v_reference = reference_cycle(h, M.levels(), v, 0, Vec(r.begin(), r.end()));
    std::vector<double> w(reference.begin(), reference.end());
    EXPECT_GT(relative_error(w, v_reference), 1e-4);
  }
}

std::vector<CycleCase> cycle_cases() {
  std::vector<CycleCase> cases;
  for (std::size_t p = 0; p < problems().size(); ++p)
    for (AmgSmoother s : {AmgSmoother::Jacobi, AmgSmoother::Chebyshev, AmgSmoother::Chebyshev4})
      for (auto [pre, post] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{0, 2}})
        for (int cycle : {1, 2}) cases.emplace_back(p, s, pre, post, cycle, Precision::Double, Location::Device);
  // The other precisions and the host backend (double on the device is above already).
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double})
    for (Location l : {Location::Device, Location::Host})
      if (p != Precision::Double || l != Location::Device) {
        for (int cycle : {1, 2}) cases.emplace_back(1, AmgSmoother::Chebyshev, 1, 1, cycle, p, l);
        cases.emplace_back(1, AmgSmoother::Chebyshev4, 1, 1, 1, p, l);
      }
  return cases;
}

std::string cycle_case_name(const ::testing::TestParamInfo<CycleCase>& info) {
  const auto& [index, smoother, pre, post, cycle_index, precision, location] = info.param;
  return std::string(problems()[index].name) + "_" + to_string(smoother) + "_" + std::to_string(pre) +
         std::to_string(post) + (cycle_index == 2 ? "_W" : "_V") + "_" + to_string(precision) + "_" +
         to_string(location);
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgCycle, ::testing::ValuesIn(cycle_cases()), cycle_case_name);

// PCG needs M symmetric: u' M v = v' M u for the V- and the W-cycle with either smoother, as many sweeps
// before as after (the post-smoother is then the pre-smoother's adjoint; 1 and 2 sweeps each).
TEST(AmgCycleSymmetry, TheVAndWCyclesAreSymmetric) {
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double);
  const HostCsrMatrix& host = problems()[1].A;
  Matrix A(context, host, Format::Csr);
  Blas solver(context, Location::Device, Precision::Double);
  const std::vector<double> u = test::random_values(host.rows, 5), v = test::random_values(host.rows, 6);
  for (int cycle : {1, 2})
    for (int sweeps : {1, 2})
      for (AmgSmoother smoother : {AmgSmoother::Jacobi, AmgSmoother::Chebyshev, AmgSmoother::Chebyshev4}) {
        AmgOptions options;
        options.coarse_size = 40;
        options.cycle_index = cycle;
        options.pre_sweeps = options.post_sweeps = sweeps;
        options.smoother = smoother;
        Amg M(solver, A, options);
        EXPECT_LT(test::asymmetry(M, context, u, v), 1e-13)
            << "cycle index " << cycle << ", " << sweeps << " sweeps, " << to_string(smoother);
      }
}

}  // namespace
}  // namespace clkr
