// Mixed-precision iterative refinement: double (or quasi-double) accuracy from single-precision inner
// solves, with CG, GMRES and BiCGStab inside, on the device and the host reference, and its stagnation.
#include "clkr/solver/iterative_refinement.hpp"

#include <gtest/gtest.h>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

// Each outer step gains about -log10(inner_relative_tolerance) digits, until the outer precision's
// floor: 1e-10 from 1 needs at least 3 steps with inner tolerance 1e-4.
TEST(IterativeRefinement, DoubleOuterSingleInnerReachesDoubleAccuracy) {
  System system(poisson2d(32), Format::Csr);
  Blas outer(test::context(), Location::Device, Precision::Double);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.record_history = true;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-10, test::poisson2d_condition(32));
  EXPECT_LE(result.true_relative_residual, 1e-10);
  EXPECT_GE(result.iterations, 3);
  EXPECT_LE(result.iterations, 6);
  EXPECT_GT(result.inner_iterations, 10 * result.iterations);
  EXPECT_TRUE(system.x.is_valid(Location::Device, Precision::Double));
  // The outer residual falls by about the inner tolerance each step.
  ASSERT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations) + 1);
  for (std::size_t k = 1; k < result.history.size(); ++k) {
    EXPECT_LE(result.history[k].residual, 1e-3 * result.history[k - 1].residual);
  }
  // Single precision alone cannot reach that tolerance.
  const SolveResult single_alone = cg(inner, system.A, system.b, system.x, options);
  EXPECT_FALSE(single_alone.converged());
  EXPECT_GT(single_alone.true_relative_residual, 1e-9);
}

TEST(IterativeRefinement, QuasiDoubleOuterSingleInner) {
  System system(poisson2d(32), Format::Csr);
  Blas outer(test::context(), Location::Device, Precision::QuasiDouble);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::QuasiDouble, 1e-10, test::poisson2d_condition(32));
  EXPECT_TRUE(system.x.is_valid(Location::Device, Precision::QuasiDouble));
}

class NonSymmetricInner : public ::testing::TestWithParam<SolverKind> {};

TEST_P(NonSymmetricInner, SolvesConvectionDiffusion) {
  System system(test::convection_diffusion(16, 1.0), Format::Csr);
  Blas outer(test::context(), Location::Device, Precision::Double);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-11;
  options.inner_solver = GetParam();
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-11, 2 * test::condition_estimate(system.host));
  EXPECT_GE(result.iterations, 2);
}

INSTANTIATE_TEST_SUITE_P(Kinds, NonSymmetricInner, ::testing::Values(SolverKind::Gmres, SolverKind::BiCgStab),
                         test::param_name<SolverKind>);

TEST(IterativeRefinement, HostReference) {
  System system(poisson2d(16), Format::Csr);
  Blas outer(test::context(), Location::Host, Precision::Double);
  Blas inner(test::context(), Location::Host, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.inner_solver = SolverKind::Pcg;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-10, test::poisson2d_condition(16));
}

// An outer loop in single precision computes its residual in single: below ~1e-7 it sees only
// rounding, so the step that fails to reduce it ends the solve as Stagnated.
TEST(IterativeRefinement, StagnatesAtTheOuterPrecisionsFloor) {
  System system(poisson2d(16), Format::Csr);
  Blas single(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-12;
  const SolveResult result = iterative_refinement(single, single, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::Stagnated) << result.message;
  EXPECT_GT(result.true_relative_residual, 1e-9);
  EXPECT_LT(result.true_relative_residual, 1e-5);
  EXPECT_LT(result.iterations, 20);
}

TEST(IterativeRefinement, RefusesMismatchedBlasObjects) {
  System system(poisson2d(4), Format::Csr);
  Blas device(test::context(), Location::Device, Precision::Double);
  Blas host(test::context(), Location::Host, Precision::Single);
  EXPECT_THROW(iterative_refinement(device, host, system.A, system.b, system.x), Error);
}

}  // namespace
}  // namespace clkr
