// The fused device path of preconditioned CG (scalars kept on the device, r'r and r'z read one
// iteration late) against the BLAS-call PCG: the same iterations and solution for Jacobi, Chebyshev and
// AMG in every precision, and NotSpd for an indefinite preconditioner.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

class FusedPcg : public ::testing::TestWithParam<std::tuple<Precision, PrecondKind>> {};

TEST_P(FusedPcg, MatchesTheBlasCallIteration) {
  const auto [precision, kind] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), precision);
  const HostCsrMatrix host = poisson3d(14);
  System fused_system(host, Format::Csr), plain_system(host, Format::Csr);
  Blas blas(test::context(), Location::Device, precision);
  PrecondOptions precond;
  precond.kind = kind;
  precond.amg.coarse_size = 100;
  const auto M = make_preconditioner(blas, fused_system.A, precond);
  SolveOptions options;
  options.relative_tolerance = precision == Precision::Single ? 1e-5 : 1e-10;
  options.record_history = true;
  options.cg_path = CgPath::Fused;
  const SolveResult fused = cg(blas, fused_system.A, *M, fused_system.b, fused_system.x, options);
  options.cg_path = CgPath::Unfused;
  const SolveResult plain = cg(blas, plain_system.A, *M, plain_system.b, plain_system.x, options);
  // The 3-D Laplacian has the condition number of the 2-D one on the same side (both are sums of 1-D ones).
  test::expect_solved(fused, fused_system, precision, options.relative_tolerance, test::poisson2d_condition(14));
  ASSERT_TRUE(plain.converged()) << plain.message;
  // The fused path notices convergence one iteration late and may take that one more step.
  EXPECT_LE(std::abs(fused.iterations - plain.iterations), 1) << fused.iterations << " vs " << plain.iterations;
  // Both residual histories fall alike (the same iteration in a different order of operations).
  const std::size_t common = std::min(fused.history.size(), plain.history.size());
  for (std::size_t k = 1; k < common; ++k)
    EXPECT_NEAR(std::log10(fused.history[k].residual), std::log10(plain.history[k].residual),
                precision == Precision::Single ? 0.5 : 0.05)
        << "iteration " << k;
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsAndPreconditioners, FusedPcg,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(PrecondKind::Jacobi, PrecondKind::Chebyshev, PrecondKind::Amg)),
    [](const auto& info) { return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param)); });

// A single-precision preconditioner inside a double solve: the fused kernels store r's single copy
// in the same pass as r and read z's single copy directly, so an iteration launches exactly what the
// same-precision PCG launches (no conversion passes), and the iteration still matches the BLAS-call one.
class MixedFusedPcg : public ::testing::TestWithParam<PrecondKind> {};

TEST_P(MixedFusedPcg, ConvertsNothingBetweenPrecisionsAndMatchesTheBlasCallIteration) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = poisson3d(14);
  System system(host, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Double);
  PrecondOptions precond;
  precond.kind = GetParam();
  precond.amg.coarse_size = 100;
  auto launches_per_iteration = [&](std::optional<Precision> precision) {
    precond.precision = precision;
    const auto M = make_preconditioner(blas, system.A, precond);
    SolveOptions options;
    options.relative_tolerance = 1e-300;  // runs every iteration asked for
    options.cg_path = CgPath::Fused;
    auto launches = [&](int iterations) {
      options.max_iterations = iterations;
      const std::uint64_t before = test::context()->command_counts().launches;
      Vector x(test::context(), host.rows, "x");
      const SolveResult result = cg(blas, system.A, *M, system.b, x, options);
      EXPECT_EQ(result.iterations, iterations) << result.message;
      return test::context()->command_counts().launches - before;
    };
    launches(1);  // one-time work (lazy copies of M's data) out of the way
    return static_cast<double>(launches(12) - launches(6)) / 6.0;
  };
  const double same = launches_per_iteration(std::nullopt);
  const double mixed = launches_per_iteration(Precision::Single);
  EXPECT_EQ(mixed, same) << "launches an iteration: mixed " << mixed << ", same precision " << same;

  precond.precision = Precision::Single;
  const auto M = make_preconditioner(blas, system.A, precond);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.cg_path = CgPath::Fused;
  System plain_system(host, Format::Csr);
  const SolveResult fused = cg(blas, system.A, *M, system.b, system.x, options);
  options.cg_path = CgPath::Unfused;
  const SolveResult plain = cg(blas, plain_system.A, *M, plain_system.b, plain_system.x, options);
  test::expect_solved(fused, system, Precision::Double, 1e-10, test::poisson2d_condition(14));
  ASSERT_TRUE(plain.converged()) << plain.message;
  EXPECT_LE(std::abs(fused.iterations - plain.iterations), 1) << fused.iterations << " vs " << plain.iterations;
}

INSTANTIATE_TEST_SUITE_P(Preconditioners, MixedFusedPcg,
                         ::testing::Values(PrecondKind::Jacobi, PrecondKind::Chebyshev, PrecondKind::Amg),
                         [](const auto& info) { return to_string(info.param); });

// The fused path keeps two iterations in flight on a GPU (and on a CPU without AMG), but holds the
// second back when the residual forecast says the first reaches the tolerance: on a smoothly
// converging problem the solve ends at the iteration that reached it, with one application of M per
// iteration and one for the start, instead of launching one more.
TEST(FusedPcgForecast, EndsAtTheIterationThatReachedTheTolerance) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = poisson3d(16);
  System system(host, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Double);
  PrecondOptions precond;
  precond.kind = PrecondKind::Jacobi;
  const auto M = make_preconditioner(blas, system.A, precond);
  SolveOptions options;
  options.relative_tolerance = 1e-9;
  options.record_history = true;
  options.cg_path = CgPath::Fused;
  const SolveResult result = cg(blas, system.A, *M, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  ASSERT_GE(result.history.size(), 3u);
  EXPECT_LE(result.history.back().residual, options.relative_tolerance);
  EXPECT_GT(result.history[result.history.size() - 2].residual, options.relative_tolerance)
      << "an iteration past the one that reached the tolerance was run";
  EXPECT_EQ(M->applications(), static_cast<std::uint64_t>(result.iterations) + 1);
}

// An SPD matrix with a Jacobi preconditioner whose diagonal has one negative entry (the matrix's own
// diagonal negated in one row, given to Jacobi directly): M is indefinite, and the fused path must end
// NotSpd rather than converge falsely.
TEST(FusedPcgRefusals, IndefinitePreconditionerEndsNotSpd) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = poisson2d(20);
  System system(host, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Double);
  std::vector<double> diagonal = system.A.diagonal();
  for (std::size_t i = 0; i < diagonal.size(); i += 7) diagonal[i] = -diagonal[i];
  Jacobi M(blas, system.A, diagonal);
  SolveOptions options;
  options.cg_path = CgPath::Fused;
  const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
  // The persistent kernel takes Jacobi too (cg_persistent_jacobi_test.cpp) and ends the same way.
  System persistent_system(host, Format::Csr);
  options.cg_path = CgPath::Persistent;
  const SolveResult persistent = cg(blas, persistent_system.A, M, persistent_system.b, persistent_system.x, options);
  EXPECT_EQ(persistent.status, SolveStatus::NotSpd) << persistent.message;
}

}  // namespace
}  // namespace clkr
