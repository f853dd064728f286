// Mixed-precision iterative refinement: double (or quasi-double) accuracy from single-precision inner
// solves, restarted with CG, GMRES and BiCGStab inside and reliable-update CG, on the device and the
// host reference, and their stagnation.
#include "clkr/solver/iterative_refinement.hpp"

#include <gtest/gtest.h>

#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

// Each outer step gains about -log10(inner_relative_tolerance) digits, until the outer precision's
// floor: 1e-10 from 1 needs at least 3 steps with inner tolerance 1e-4.
TEST(IterativeRefinement, DoubleOuterSingleInnerReachesDoubleAccuracy) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  System system(poisson2d(32), Format::Csr);
  Blas outer(test::context(), Location::Device, Precision::Double);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.refinement = RefinementScheme::Restarted;
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
  options.refinement = RefinementScheme::Restarted;
  options.relative_tolerance = 1e-10;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::QuasiDouble, 1e-10, test::poisson2d_condition(32));
  EXPECT_TRUE(system.x.is_valid(Location::Device, Precision::QuasiDouble));
}

class NonSymmetricInner : public ::testing::TestWithParam<SolverKind> {};

TEST_P(NonSymmetricInner, SolvesConvectionDiffusion) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
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
  options.refinement = RefinementScheme::Restarted;
  options.relative_tolerance = 1e-12;
  const SolveResult result = iterative_refinement(single, single, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::Stagnated) << result.message;
  EXPECT_GT(result.true_relative_residual, 1e-9);
  EXPECT_LT(result.true_relative_residual, 1e-5);
  EXPECT_LT(result.iterations, 20);
}

// ---- reliable-update CG ---------------------------------------------------------------------------

// One system solved by double CG, restarted IR and reliable-update IR (double outer, single inner) at
// `location`, to 1e-10.
struct ThreeSolves {
  SolveResult double_cg, restarted, reliable;
};

ThreeSolves solve_three_ways(const HostCsrMatrix& host, Location location, double kappa) {
  ThreeSolves out;
  Blas outer(test::context(), location, Precision::Double);
  Blas inner(test::context(), location, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.record_history = true;
  {
    System system(host, Format::Csr);
    out.double_cg = cg(outer, system.A, system.b, system.x, options);
    EXPECT_TRUE(out.double_cg.converged()) << out.double_cg.message;
  }
  {
    System system(host, Format::Csr);
    options.refinement = RefinementScheme::Restarted;
    out.restarted = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
    EXPECT_TRUE(out.restarted.converged()) << out.restarted.message;
  }
  System system(host, Format::Csr);
  options.refinement = RefinementScheme::ReliableUpdate;
  out.reliable = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(out.reliable, system, Precision::Double, 1e-10, kappa);
  EXPECT_LE(out.reliable.true_relative_residual, 1e-10);
  EXPECT_TRUE(system.x.is_valid(location, Precision::Double));
  return out;
}

// The reliable updates keep CG's Krylov space, so the single-precision iterations stay near double
// CG's count, well below the restarted scheme's; what remains is single precision's own delay of CG
// (measured with PoCL: poisson2d:64 200 vs 133, gr_30_30 66 vs 45, nos3 509 vs 280, where restarted
// IR needs 293, 109 and 646). One history record per update, each a true residual.
class ReliableUpdate : public ::testing::TestWithParam<std::tuple<std::string, Location>> {};

TEST_P(ReliableUpdate, ReachesDoubleAccuracyWithFewerInnerIterationsThanRestarted) {
  const auto& [name, location] = GetParam();
  // Compared with CG in double on the same location: on the device that needs fp64.
  if (location == Location::Device) CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  HostCsrMatrix host;
  double kappa = 0;
  if (name == "poisson2d_64") {
    host = poisson2d(64);
    kappa = test::poisson2d_condition(64);
  } else {
    const std::string path = test::matrix_path(name + ".mtx");
    if (path.empty()) GTEST_SKIP() << name << ".mtx not found";
    host = read_matrix_market(path);
    kappa = 2 * test::condition_estimate(host);
  }
  const ThreeSolves s = solve_three_ways(host, location, kappa);
  const SolveResult& r = s.reliable;
  EXPECT_LT(r.inner_iterations, s.restarted.inner_iterations);
  EXPECT_LE(r.inner_iterations, 2 * s.double_cg.iterations);
  EXPECT_GE(r.inner_iterations, s.double_cg.iterations - 2);
  // Updates come every few inner iterations: delta = 0.1 per update at most, about 10 for 10 decades.
  EXPECT_GE(r.iterations, 5);
  EXPECT_LE(r.iterations, r.inner_iterations / 2);
  ASSERT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
  EXPECT_NEAR(r.history[0].residual, 1.0, 1e-12);
  EXPECT_LE(r.history.back().residual, 1e-10);
  EXPECT_NE(r.message.find("reliable update"), std::string::npos) << r.message;
}

INSTANTIATE_TEST_SUITE_P(Matrices, ReliableUpdate,
                         ::testing::Combine(::testing::Values("poisson2d_64", "gr_30_30", "nos3"),
                                            ::testing::Values(Location::Device, Location::Host)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  (std::get<1>(info.param) == Location::Device ? "device" : "host");
                         });

// With the inner precision equal to the outer one the reliable updates only replace r by b - A x:
// the iteration is CG's own, to within the rounding of the recomputed residual.
TEST(IterativeRefinement, ReliableUpdateWithoutMixingIsCg) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = poisson2d(24);
  Blas blas(test::context(), Location::Device, Precision::Double);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  System cg_system(host, Format::Csr), ir_system(host, Format::Csr);
  const SolveResult plain = cg(blas, cg_system.A, cg_system.b, cg_system.x, options);
  options.refinement = RefinementScheme::ReliableUpdate;
  const SolveResult ir = iterative_refinement(blas, blas, ir_system.A, ir_system.b, ir_system.x, options);
  ASSERT_TRUE(ir.converged()) << ir.message;
  EXPECT_LE(std::abs(ir.inner_iterations - plain.iterations), 2) << ir.inner_iterations << " vs " << plain.iterations;
}

TEST(IterativeRefinement, ReliableUpdateQuasiDoubleOuterAndEll) {
  System system(poisson2d(32), Format::Ell);
  Blas outer(test::context(), Location::Device, Precision::QuasiDouble);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  EXPECT_EQ(resolved_refinement(options), RefinementScheme::ReliableUpdate);
  test::expect_solved(result, system, Precision::QuasiDouble, 1e-10, test::poisson2d_condition(32));
  EXPECT_TRUE(system.x.is_valid(Location::Device, Precision::QuasiDouble));
  EXPECT_GE(result.iterations, 5);
}

// The inner vectors hold r / ||r||: a right-hand side of norm 1e-25 (whose residual's r'r would
// underflow single precision long before 1e-10) solves like any other.
TEST(IterativeRefinement, ReliableUpdateIsScaleInvariant) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  System system(poisson2d(16), Format::Csr);
  std::vector<double> tiny = system.b.to_host();
  for (double& v : tiny) v *= 1e-25;
  system.b.assign(tiny);
  for (double& v : system.x_true) v *= 1e-25;
  Blas outer(test::context(), Location::Device, Precision::Double);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-10, test::poisson2d_condition(16));
}

TEST(IterativeRefinement, ReliableUpdateReportsNotSpd) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  HostCsrMatrix indefinite = poisson2d(10);
  for (std::int32_t i = 0; i < indefinite.rows; ++i) {
    for (std::int32_t k = indefinite.row_offsets[i]; k < indefinite.row_offsets[i + 1]; ++k) {
      if (indefinite.col_indices[k] == i) indefinite.values[k] -= 4.5;
    }
  }
  for (Location location : {Location::Device, Location::Host}) {
    System system(indefinite, Format::Csr);
    Blas outer(test::context(), location, widest);
    Blas inner(test::context(), location, Precision::Single);
    SolveOptions options;
    options.refinement = RefinementScheme::ReliableUpdate;
    const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
    EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
    EXPECT_NE(result.message.find("p'Ap"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("inner iteration"), std::string::npos) << result.message;
    EXPECT_LT(result.inner_iterations, 20);
  }
}

// A single-precision outer loop sees only rounding below ~1e-7: the true residual stops following the
// recursive one and the solve ends as Stagnated, early.
TEST(IterativeRefinement, ReliableUpdateStagnatesAtTheOuterPrecisionsFloor) {
  System system(poisson2d(16), Format::Csr);
  Blas single(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.refinement = RefinementScheme::ReliableUpdate;
  options.relative_tolerance = 1e-12;
  const SolveResult result = iterative_refinement(single, single, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::Stagnated) << result.message;
  EXPECT_GT(result.true_relative_residual, 1e-9);
  EXPECT_LT(result.true_relative_residual, 1e-5);
  EXPECT_LT(result.iterations, 20);
}

// inner_max_iterations forces an update after that many inner iterations; max_iterations bounds the
// updates.
TEST(IterativeRefinement, ReliableUpdateLimits) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(16), Format::Csr);
  Blas outer(test::context(), Location::Device, widest);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.inner_max_iterations = 3;
  options.max_iterations = 4;
  const SolveResult result = iterative_refinement(outer, inner, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::MaxIterations) << result.message;
  EXPECT_EQ(result.iterations, 4);
  EXPECT_LE(result.inner_iterations, 12);
  EXPECT_GE(result.inner_iterations, 4);
  EXPECT_LT(result.true_relative_residual, 1.0);
}

TEST(IterativeRefinement, SchemeNamesAndChecks) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  for (RefinementScheme s : {RefinementScheme::Auto, RefinementScheme::Restarted, RefinementScheme::ReliableUpdate}) {
    EXPECT_EQ(parse_refinement(to_string(s)), s);
  }
  EXPECT_EQ(parse_refinement("Reliable"), RefinementScheme::ReliableUpdate);
  EXPECT_THROW(parse_refinement("flexible"), Error);
  SolveOptions options;
  EXPECT_EQ(resolved_refinement(options), RefinementScheme::ReliableUpdate);
  options.inner_solver = SolverKind::Gmres;
  EXPECT_EQ(resolved_refinement(options), RefinementScheme::Restarted);

  System system(poisson2d(4), Format::Csr);
  Blas outer(test::context(), Location::Device, widest);
  Blas inner(test::context(), Location::Device, Precision::Single);
  options.refinement = RefinementScheme::ReliableUpdate;
  EXPECT_THROW(iterative_refinement(outer, inner, system.A, system.b, system.x, options), Error);
  options = {};
  for (double bad : {0.0, 1.0, std::nan("")}) {
    options.reliable_update_delta = bad;
    EXPECT_THROW(iterative_refinement(outer, inner, system.A, system.b, system.x, options), Error);
  }
}

TEST(IterativeRefinement, RefusesMismatchedBlasObjects) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(4), Format::Csr);
  Blas device(test::context(), Location::Device, widest);
  Blas host(test::context(), Location::Host, Precision::Single);
  EXPECT_THROW(iterative_refinement(device, host, system.A, system.b, system.x), Error);
}

}  // namespace
}  // namespace clkr
