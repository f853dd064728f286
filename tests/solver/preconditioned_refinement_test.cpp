// Mixed-precision iterative refinement with a preconditioner: reliable-update PCG (the inner PCG in
// single precision, M in single) against PCG in double with the same kind of M, the reliable scheme
// with no mixing against plain PCG, the restarted scheme with M inside, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/iterative_refinement.hpp"
#include "clkr/solver/solve.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

PrecondOptions precond_in(PrecondKind kind, std::optional<Precision> precision) {
  PrecondOptions options;
  options.kind = kind;
  options.precision = precision;
  return options;
}

// The systems: a 3D Poisson problem for the AMG (mesh-independent iterations), a 2D one for the
// point preconditioners (hundreds of PCG iterations to 1e-10, where the reliable updates matter).
HostCsrMatrix system_for(PrecondKind kind) { return kind == PrecondKind::Amg ? poisson3d(16) : poisson2d(48); }

class ReliableUpdatePcg : public ::testing::TestWithParam<std::tuple<PrecondKind, Location>> {};

// Double PCG and reliable-update PCG (double outer, single inner, M in single) to 1e-10 on the same
// system: the mixed solve reaches the double tolerance on the true residual, in about double PCG's
// iterations (single precision's own delay of CG and one iteration per update at most on top), with
// every inner iteration applying M once.
TEST_P(ReliableUpdatePcg, ReachesDoubleAccuracyInAboutDoublePcgsIterations) {
  const auto& [kind, location] = GetParam();
  if (location == Location::Device) CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = system_for(kind);
  Blas outer(test::context(), location, Precision::Double);
  Blas inner(test::context(), location, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.record_history = true;
  options.strengthen_check = 0;

  System double_system(host, Format::Csr);
  const std::unique_ptr<Preconditioner> M_double =
      make_preconditioner(outer, double_system.A, precond_in(kind, std::nullopt));
  const SolveResult pcg = cg(outer, double_system.A, *M_double, double_system.b, double_system.x, options);
  ASSERT_TRUE(pcg.converged()) << pcg.message;

  System system(host, Format::Csr);
  const std::unique_ptr<Preconditioner> M = make_preconditioner(outer, system.A, precond_in(kind, Precision::Single));
  ASSERT_EQ(M->precision(), Precision::Single);
  const SolveResult r = iterative_refinement(outer, inner, system.A, *M, system.b, system.x, options);
  test::expect_solved(r, system, Precision::Double, 1e-10, 2 * test::condition_estimate(host));
  EXPECT_LE(r.true_relative_residual, 1e-10);
  EXPECT_TRUE(system.x.is_valid(location, Precision::Double));
  EXPECT_GE(r.inner_iterations, pcg.iterations - 2) << "double PCG " << pcg.iterations;
  EXPECT_LE(r.inner_iterations, pcg.iterations + pcg.iterations / 2 + r.iterations)
      << "double PCG " << pcg.iterations << ", updates " << r.iterations;
  // One application at the start and one per inner iteration; an update reuses the last z unless
  // the new residual is unlike the recursive one (at most one more per update).
  EXPECT_GE(M->applications(), static_cast<std::uint64_t>(r.inner_iterations));
  EXPECT_LE(M->applications(), static_cast<std::uint64_t>(r.inner_iterations + r.iterations + 1));
  // A history record per update, each a true residual, about a decade apart (delta = 0.1).
  EXPECT_GE(r.iterations, 3);
  ASSERT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
  EXPECT_LE(r.history.back().residual, 1e-10);
  EXPECT_NE(r.message.find("reliable update"), std::string::npos) << r.message;
}

INSTANTIATE_TEST_SUITE_P(Kinds, ReliableUpdatePcg,
                         ::testing::Combine(::testing::Values(PrecondKind::Jacobi, PrecondKind::Chebyshev,
                                                              PrecondKind::Amg),
                                            ::testing::Values(Location::Device, Location::Host)),
                         [](const auto& info) {
                           return to_string(std::get<0>(info.param)) + "_" +
                                  (std::get<1>(info.param) == Location::Device ? "device" : "host");
                         });

// With the inner precision equal to the outer one, the reliable updates only replace r by b - A x
// and restore r'p = r'z: the iteration is PCG's own, to within the rounding of the recomputed
// residual, on the device's fused steps and on the host's BLAS calls alike.
TEST(ReliableUpdatePcgUnmixed, IsPcg) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = poisson2d(32);
  for (Location location : {Location::Device, Location::Host}) {
    for (PrecondKind kind : {PrecondKind::Jacobi, PrecondKind::Chebyshev}) {
      SCOPED_TRACE(to_string(kind) + (location == Location::Device ? " on the device" : " on the host"));
      Blas blas(test::context(), location, Precision::Double);
      SolveOptions options;
      options.relative_tolerance = 1e-10;
      System pcg_system(host, Format::Csr), ir_system(host, Format::Csr);
      const std::unique_ptr<Preconditioner> M = make_preconditioner(blas, pcg_system.A, precond_in(kind, std::nullopt));
      const SolveResult plain = cg(blas, pcg_system.A, *M, pcg_system.b, pcg_system.x, options);
      ASSERT_TRUE(plain.converged()) << plain.message;
      const SolveResult ir = iterative_refinement(blas, blas, ir_system.A, *M, ir_system.b, ir_system.x, options);
      ASSERT_TRUE(ir.converged()) << ir.message;
      EXPECT_LE(std::abs(ir.inner_iterations - plain.iterations), 2)
          << ir.inner_iterations << " against PCG's " << plain.iterations;
      EXPECT_LE(ir.true_relative_residual, 1e-10);
    }
  }
}

// A preconditioner that solves in one step (the AMG of a matrix below its coarse size is one level,
// a dense inverse): each segment's recursive residual plunges to single precision's rounding noise at
// once, unlike the true one, and the update then makes z afresh; reused, that z turned the next
// directions into noise (600 inner iterations on this system).
TEST(ReliableUpdatePcgExactM, TakesAFewIterationsPerUpdate) {
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(16), Format::Csr);
  Blas outer(test::context(), Location::Device, widest);
  Blas inner(test::context(), Location::Device, Precision::Single);
  PrecondOptions options = precond_in(PrecondKind::Amg, Precision::Single);
  options.amg.coarse_size = 500;
  const std::unique_ptr<Preconditioner> M = make_preconditioner(outer, system.A, options);
  SolveOptions solve_options;
  solve_options.relative_tolerance = 1e-11;
  const SolveResult r = iterative_refinement(outer, inner, system.A, *M, system.b, system.x, solve_options);
  test::expect_solved(r, system, widest, 1e-11, test::poisson2d_condition(16));
  EXPECT_LE(r.inner_iterations, 3 * r.iterations + 2) << r.iterations << " updates";
}

// Quasi-double outside, single inside (a device without fp64): the same accuracy.
TEST(ReliableUpdatePcgQuasiDouble, ReachesTheTolerance) {
  System system(poisson2d(32), Format::Csr);
  Blas outer(test::context(), Location::Device, Precision::QuasiDouble);
  Blas inner(test::context(), Location::Device, Precision::Single);
  const std::unique_ptr<Preconditioner> M =
      make_preconditioner(outer, system.A, precond_in(PrecondKind::Jacobi, Precision::Single));
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  const SolveResult r = iterative_refinement(outer, inner, system.A, *M, system.b, system.x, options);
  test::expect_solved(r, system, Precision::QuasiDouble, 1e-10, test::poisson2d_condition(32));
  EXPECT_TRUE(system.x.is_valid(Location::Device, Precision::QuasiDouble));
}

// M negative definite (A = -Poisson, Jacobi's diagonal negative): r'z < 0 from the start, reported as
// NotSpd naming the preconditioner, on both locations.
TEST(ReliableUpdatePcgNotSpd, ReportsAPreconditionerThatIsNotPositiveDefinite) {
  const Precision widest = test::widest_device_precision(*test::context());
  HostCsrMatrix negative = poisson2d(10);
  for (double& v : negative.values) v = -v;
  for (Location location : {Location::Device, Location::Host}) {
    System system(negative, Format::Csr);
    Blas outer(test::context(), location, widest);
    Blas inner(test::context(), location, Precision::Single);
    const std::unique_ptr<Preconditioner> M =
        make_preconditioner(outer, system.A, precond_in(PrecondKind::Jacobi, Precision::Single));
    const SolveResult r = iterative_refinement(outer, inner, system.A, *M, system.b, system.x);
    EXPECT_EQ(r.status, SolveStatus::NotSpd) << r.message;
    EXPECT_NE(r.message.find("preconditioner is not positive definite"), std::string::npos) << r.message;
    EXPECT_EQ(r.inner_iterations, 0);
  }
}

// The restarted scheme hands M to each inner solve: CG with Jacobi inside needs fewer inner
// iterations than CG without, to the same double accuracy; GMRES takes it as a right preconditioner.
TEST(PreconditionedRestartedRefinement, InnerSolvesTakeThePreconditioner) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  HostCsrMatrix host = poisson2d(32);
  // Rows scaled unevenly, symmetrically (D A D): Jacobi then has something to undo.
  std::vector<double> d(host.rows);
  for (std::int32_t i = 0; i < host.rows; ++i) d[i] = 1.0 + 9.0 * ((i * 7919) % 101) / 100.0;
  for (std::int32_t i = 0; i < host.rows; ++i)
    for (std::int32_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      host.values[k] *= d[i] * d[host.col_indices[k]];
  Blas outer(test::context(), Location::Device, Precision::Double);
  Blas inner(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.refinement = RefinementScheme::Restarted;
  options.relative_tolerance = 1e-10;
  System plain_system(host, Format::Csr);
  const SolveResult plain = iterative_refinement(outer, inner, plain_system.A, plain_system.b, plain_system.x, options);
  ASSERT_TRUE(plain.converged()) << plain.message;
  for (SolverKind kind : {SolverKind::Cg, SolverKind::Gmres}) {
    SCOPED_TRACE(to_string(kind));
    options.inner_solver = kind;
    System system(host, Format::Csr);
    const std::unique_ptr<Preconditioner> M =
        make_preconditioner(outer, system.A, precond_in(PrecondKind::Jacobi, Precision::Single));
    const SolveResult r = iterative_refinement(outer, inner, system.A, *M, system.b, system.x, options);
    test::expect_solved(r, system, Precision::Double, 1e-10, 2 * test::condition_estimate(host));
    EXPECT_GT(M->applications(), 0u);
    if (kind == SolverKind::Cg) EXPECT_LT(r.inner_iterations, plain.inner_iterations);
  }
}

// solve(SolverKind::Ir, ...) with M runs the same refinement, its inner Blas in options.inner_precision.
TEST(PreconditionedRefinementDispatch, SolveWithIrTakesThePreconditioner) {
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson3d(12), Format::Csr);
  Blas outer(test::context(), Location::Device, widest);
  const std::unique_ptr<Preconditioner> M =
      make_preconditioner(outer, system.A, precond_in(PrecondKind::Amg, Precision::Single));
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.inner_precision = Precision::Single;
  const SolveResult r = solve(SolverKind::Ir, outer, system.A, *M, system.b, system.x, options);
  test::expect_solved(r, system, widest, 1e-10, 2 * test::condition_estimate(system.host));
  EXPECT_LT(r.inner_iterations, 25);  // AMG-PCG; CG alone takes ~60 on this grid
  EXPECT_GE(M->applications(), static_cast<std::uint64_t>(r.inner_iterations));
}

TEST(PreconditionedRefinementChecks, RefusesWhatItCannotRun) {
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(6), Format::Csr);
  Blas outer(test::context(), Location::Device, widest);
  Blas inner(test::context(), Location::Device, Precision::Single);
  const std::unique_ptr<Preconditioner> in_outer =
      make_preconditioner(outer, system.A, precond_in(PrecondKind::Jacobi, std::nullopt));
  const std::unique_ptr<Preconditioner> in_inner =
      make_preconditioner(outer, system.A, precond_in(PrecondKind::Jacobi, Precision::Single));
  // M in another precision than the inner iterations.
  try {
    iterative_refinement(outer, inner, system.A, *in_outer, system.b, system.x);
    ADD_FAILURE() << "a preconditioner in the outer precision was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inner precision"), std::string::npos) << e.what();
  }
  // pcg inside brings its own Jacobi.
  SolveOptions options;
  options.refinement = RefinementScheme::Restarted;
  options.inner_solver = SolverKind::Pcg;
  EXPECT_THROW(iterative_refinement(outer, inner, system.A, *in_inner, system.b, system.x, options), Error);
  // M built for another matrix.
  System other(poisson2d(5), Format::Csr);
  EXPECT_THROW(iterative_refinement(outer, inner, other.A, *in_inner, other.b, other.x), Error);
}

}  // namespace
}  // namespace clkr
