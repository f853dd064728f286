// PCG with Jacobi on the persistent CG kernel (-DJACOBI: z = inv_diag .* r formed inside the kernel)
// against the fused Jacobi-PCG, on a badly scaled matrix where Jacobi is what makes CG converge
// quickly (S A S with S = diag(10^u), u in [-1, 1]: test::SymmetricScaling, a diagonal spanning four
// orders of magnitude, which Jacobi undoes exactly): the same iterations in every precision and every variant of the
// kernel (CSR with one or several lanes a row, the load-balanced rows, DIA), Auto taking it, r'z <= 0 seen inside a
// launch ending NotSpd, the other preconditioners refused, and the fallback to the fused PCG.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/solve.hpp"
#include "persistent_cg_support.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::persistent_blas;
using test::small_chunks;
using test::System;

// The kernel's variants: CSR with LANES work-items a row (0: chosen from the mean row), the
// load-balanced rows (-DBALANCED), DIA (-DDIA).
enum class Variant { CsrOneLane, CsrFourLanes, Balanced, Dia };

std::string variant_name(Variant v) {
  switch (v) {
    case Variant::CsrOneLane:
      return "csr_lanes1";
    case Variant::CsrFourLanes:
      return "csr_lanes4";
    case Variant::Balanced:
      return "balanced";
    case Variant::Dia:
      return "dia";
  }
  return "?";
}

Blas variant_blas(Precision p, Variant v) {
  BlasOptions options;
  options.params = device_params(test::context()->info(), "off");
  options.params->cg = small_chunks(v == Variant::CsrFourLanes ? 4 : 1);
  // Every matrix takes the balanced kernels at a ratio of 0, none at infinity.
  options.params->spmv.csr_balanced_min_row_ratio =
      v == Variant::Balanced ? 0 : std::numeric_limits<double>::infinity();
  return Blas(test::context(), Location::Device, p, options);
}

class PersistentJacobi : public ::testing::TestWithParam<std::tuple<Precision, Variant>> {};

TEST_P(PersistentJacobi, MatchesTheFusedPcgAndTakesFarFewerIterationsThanCg) {
  const auto [p, variant] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const HostCsrMatrix host = test::SymmetricScaling(poisson2d(24), 1.0, 3).matrix;  // 576 rows
  const Format format = variant == Variant::Dia ? Format::Dia : Format::Csr;
  SolveOptions options;
  options.relative_tolerance = test::tolerance_for(p);
  options.max_iterations = 20000;

  System system(host, format);
  Blas blas = variant_blas(p, variant);
  Jacobi M(blas, system.A);
  options.cg_path = CgPath::Persistent;
  const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, 2 * test::condition_estimate(host));
  EXPECT_EQ(result.path, "persistent");
  const auto& counters = blas.counters();
  ASSERT_EQ(counters.count("cg_persistent"), 1u);
  EXPECT_EQ(counters.count("cg_update_xr"), 0u);  // no fallback
  EXPECT_GE(counters.at("cg_persistent").calls, static_cast<std::uint64_t>(result.iterations / 5));
  EXPECT_EQ(M.applications(), 1u);  // z = M^-1 r at the start; the kernel forms the others itself

  // The fused path's PCG with the same M: the same iteration in another summation order.
  System fused_system(host, format);
  Blas fused_blas(test::context(), Location::Device, p);
  Jacobi fused_M(fused_blas, fused_system.A);
  options.cg_path = CgPath::Fused;
  const SolveResult fused = cg(fused_blas, fused_system.A, fused_M, fused_system.b, fused_system.x, options);
  ASSERT_TRUE(fused.converged()) << fused.message;
  const int slack = std::max(3, fused.iterations / 20);
  EXPECT_LE(std::abs(result.iterations - fused.iterations), slack) << result.iterations << " vs " << fused.iterations;

  // Without Jacobi the same kernel needs several times the iterations: the kernel did precondition.
  System plain_system(host, format);
  Blas plain_blas = variant_blas(p, variant);
  options.cg_path = CgPath::Persistent;
  const SolveResult plain = cg(plain_blas, plain_system.A, plain_system.b, plain_system.x, options);
  EXPECT_GE(plain.iterations, 2 * result.iterations) << plain.iterations << " vs " << result.iterations;
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsAndVariants, PersistentJacobi,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(Variant::CsrOneLane, Variant::CsrFourLanes, Variant::Balanced, Variant::Dia)),
    [](const auto& info) { return to_string(std::get<0>(info.param)) + "_" + variant_name(std::get<1>(info.param)); });

// A Jacobi preconditioner kept in another precision than the solve's (single inside a double solve):
// the kernel reads its inverse diagonal converted to the solve's precision, the same M as the fused
// path applies, so the two take the same iterations.
TEST(PersistentJacobiPath, TakesAJacobiOfAnotherPrecision) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = test::SymmetricScaling(poisson2d(20), 1.0, 11).matrix;
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  int iterations[2] = {0, 0};
  for (CgPath path : {CgPath::Persistent, CgPath::Fused}) {
    System system(host, Format::Csr);
    Blas blas = persistent_blas(Precision::Double, small_chunks(0));
    Jacobi M(blas, system.A, Precision::Single);
    options.cg_path = path;
    const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
    test::expect_solved(result, system, Precision::Double, 1e-10, 2 * test::condition_estimate(host));
    EXPECT_EQ(result.path, to_string(path));
    iterations[path == CgPath::Fused] = result.iterations;
  }
  EXPECT_LE(std::abs(iterations[0] - iterations[1]), 3) << iterations[0] << " vs " << iterations[1];
}

TEST(PersistentJacobiPath, AutoTakesItForJacobiButNotForChebyshev) {
  const Precision widest = test::widest_device_precision(*test::context());
  const HostCsrMatrix host = test::SymmetricScaling(poisson2d(12), 1.0, 5).matrix;  // 144 rows, within the limit below
  const CgParams limit{144, 64, 1, 64, 0, test::kPatientSpins};
  SolveOptions options;  // CgPath::Auto
  {
    System system(host, Format::Csr);
    Blas blas = persistent_blas(widest, limit);
    // SolverKind::Pcg: CG with its own Jacobi, as `clkr solve --solver pcg` and bench solve's jacobi run.
    const SolveResult result = solve(SolverKind::Pcg, blas, system.A, system.b, system.x, options);
    ASSERT_TRUE(result.converged()) << result.message;
    EXPECT_EQ(result.path, "persistent");
    EXPECT_EQ(blas.counters().count("cg_persistent"), 1u);
    EXPECT_EQ(blas.counters().count("cg_update_xr"), 0u);
  }
  {
    System system(host, Format::Csr);
    Blas blas = persistent_blas(widest, limit);
    PrecondOptions chebyshev;
    chebyshev.kind = PrecondKind::Chebyshev;
    const auto M = make_preconditioner(blas, system.A, chebyshev);
    const SolveResult result = cg(blas, system.A, *M, system.b, system.x, options);
    ASSERT_TRUE(result.converged()) << result.message;
    EXPECT_EQ(result.path, "fused");
    EXPECT_EQ(blas.counters().count("cg_persistent"), 0u);
  }
}

TEST(PersistentJacobiPath, AskedForWithAnotherPreconditionerIsAnError) {
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(8), Format::Csr);
  Blas blas = persistent_blas(widest, small_chunks(0));
  PrecondOptions chebyshev;
  chebyshev.kind = PrecondKind::Chebyshev;
  const auto M = make_preconditioner(blas, system.A, chebyshev);
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  try {
    cg(blas, system.A, *M, system.b, system.x, options);
    FAIL() << "the persistent kernel ran with Chebyshev";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Jacobi"), std::string::npos) << e.what();
  }
}

// An indefinite M whose r'z is positive at the start but not after the first step: Jacobi's entry of
// one row negative and tiny (its 1 / d huge), and b zero in that row, so that r_0 is zero there and
// r'z > 0; the first step makes r nonzero there and r'z hugely negative. The kernel sees it inside the
// launch; the solve ends NotSpd naming r'z after one iteration, as the fused path does.
TEST(PersistentJacobiPath, NegativeRzInsideALaunchEndsNotSpd) {
  const Precision widest = test::widest_device_precision(*test::context());
  const HostCsrMatrix host = poisson2d(16);
  const std::int32_t row = 100;
  std::vector<double> b(host.rows, 1.0);
  b[row] = 0.0;
  for (CgPath path : {CgPath::Persistent, CgPath::Fused}) {
    Matrix A(test::context(), host, Format::Csr);
    Vector bv(test::context(), b, "b"), x(test::context(), host.rows, "x");
    Blas blas = persistent_blas(widest, small_chunks(0));
    std::vector<double> diagonal = A.diagonal();
    diagonal[row] = -1e-8;
    Jacobi M(blas, A, diagonal);
    SolveOptions options;
    options.cg_path = path;
    const SolveResult result = cg(blas, A, M, bv, x, options);
    EXPECT_EQ(result.status, SolveStatus::NotSpd) << to_string(path) << ": " << result.message;
    EXPECT_NE(result.message.find("r'z"), std::string::npos) << result.message;
    EXPECT_EQ(result.iterations, 1) << to_string(path);
    if (path == CgPath::Persistent) EXPECT_EQ(blas.counters().count("cg_persistent"), 1u);
  }
}

// An aborted launch (a spin limit of 0: every launch aborts at its first barrier): the solve starts over
// on the fused PCG, with the same Jacobi, from the initial guess.
TEST(PersistentJacobiPath, FallsBackToTheFusedPcgWhenABarrierTimesOut) {
  const Precision widest = test::widest_device_precision(*test::context());
  const test::SymmetricScaling scaled(test::shifted_poisson(64.0 * 64.0), 1.0, 9);
  const HostCsrMatrix& host = scaled.matrix;
  System system(host, Format::Csr);
  Blas blas = persistent_blas(widest, CgParams{1u << 30, 64, 1, 5, 1, 0});
  Jacobi M(blas, system.A);
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  options.relative_tolerance = 1e-10;
  const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
  // Jacobi-PCG on S A S is CG on A with a unit diagonal: A's condition bound holds for the iteration,
  // and the forward error is bounded through S A S's own condition, at most A's times max S^2 / min S^2.
  test::expect_solved(result, system, widest, 1e-10, test::kShiftedKappa * scaled.kappa_factor);
  EXPECT_NE(result.path.find("fused"), std::string::npos) << result.path;
  const auto& counters = blas.counters();
  ASSERT_EQ(counters.count("cg_persistent"), 1u);
  EXPECT_EQ(counters.at("cg_persistent").flops, 0.0);  // the aborted launches count no iterations
  EXPECT_EQ(counters.count("cg_update_xr"), 1u);
  EXPECT_LT(result.iterations, 40);  // Jacobi's count (a condition number below 3 after the scaling)
}

}  // namespace
}  // namespace clkr
