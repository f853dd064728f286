// The fused device path of preconditioned CG (scalars kept on the device, r'r and r'z read one
// iteration late) against the BLAS-call PCG: the same iterations and solution for Jacobi, Chebyshev and
// AMG in every precision, NotSpd for an indefinite preconditioner, and the persistent path refused.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

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
  options.cg_path = CgPath::Persistent;
  EXPECT_THROW(cg(blas, system.A, M, system.b, system.x, options), Error);
}

}  // namespace
}  // namespace clkr
