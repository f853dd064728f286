// The device CG's fused path (three kernels per iteration, scalars on the device, residual read one
// iteration late) against the plain BLAS-call iteration: same solution quality, the same iterations
// within the one-iteration lag, its kernels in the counters, and its breakdown checks.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/cg.hpp"
#include "solver/grouped_solution.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

class FusedCg : public ::testing::TestWithParam<std::tuple<Precision, Format>> {};

TEST_P(FusedCg, MatchesTheUnfusedIteration) {
  const auto [p, format] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const int grid = 21;  // 441 rows: not a multiple of any work-group size
  const double tol = p == Precision::Single ? 1e-5 : 1e-10;
  SolveOptions options;
  options.relative_tolerance = tol;
  options.cg_path = CgPath::Fused;

  System fused_system(poisson2d(grid), format);
  Blas fused_blas(test::context(), Location::Device, p);
  const SolveResult fused = cg(fused_blas, fused_system.A, fused_system.b, fused_system.x, options);
  test::expect_solved(fused, fused_system, p, tol, test::poisson2d_condition(grid));

  System plain_system(poisson2d(grid), format);
  Blas plain_blas(test::context(), Location::Device, p);
  options.cg_path = CgPath::Unfused;
  const SolveResult plain = cg(plain_blas, plain_system.A, plain_system.b, plain_system.x, options);
  ASSERT_TRUE(plain.converged()) << plain.message;

  // The fused solve stops at most one iteration later (it sees r'r one iteration late); rounding in
  // another summation order may shift convergence by an iteration or two either way.
  EXPECT_LE(std::abs(fused.iterations - plain.iterations), 3) << fused.iterations << " vs " << plain.iterations;
  EXPECT_EQ(plain_blas.counters().count("cg_update_xr"), 0u);
  const auto& counters = fused_blas.counters();
  ASSERT_EQ(counters.count("cg_update_xr"), 1u);
  ASSERT_EQ(counters.count("cg_update_p"), 1u);
  const std::uint64_t steps = counters.at("cg_update_xr").calls;
  EXPECT_GE(steps, static_cast<std::uint64_t>(fused.iterations));
  EXPECT_EQ(counters.at("cg_update_p").calls, steps);
  // CSR, ELL, SELL and DIA fuse the SpMV with p'q; the other formats run the Blas SpMV and a partial-sum
  // kernel.
  const bool fused_spmv =
      format == Format::Csr || format == Format::Ell || format == Format::Sell || format == Format::Dia;
  EXPECT_EQ(counters.count("cg_spmv_dot"), fused_spmv ? 1u : 0u);
  EXPECT_EQ(counters.count("cg_dot_partials"), fused_spmv ? 0u : 1u);
  const double n = 441, e = static_cast<double>(bytes_per_element(p));
  // Every 32nd step also joins the sum of the steps into x (grouped_solution.hpp): x read and written.
  const double joins = static_cast<double>(steps / detail::GroupedSolution::kGroup);
  EXPECT_DOUBLE_EQ(counters.at("cg_update_xr").bytes, (steps * 6 + joins * 2) * n * e);
  EXPECT_DOUBLE_EQ(counters.at("cg_update_p").bytes, steps * 3 * n * e);
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsAndFormats, FusedCg,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(Format::Csr, Format::Ell, Format::Hyb, Format::Sell, Format::Dia)),
    [](const auto& info) { return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param)); });

TEST(FusedCg, HistoryHasEveryIterationInOrder) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(12), Format::Csr);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.cg_path = CgPath::Fused;
  options.record_history = true;
  int calls = 0;
  options.progress = [&](const IterationRecord&) { ++calls; };
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  ASSERT_GE(result.history.size(), static_cast<std::size_t>(result.iterations));
  for (std::size_t k = 1; k < result.history.size(); ++k)
    EXPECT_GE(result.history[k].iteration, result.history[k - 1].iteration);
  EXPECT_EQ(result.history.front().iteration, 0);
  EXPECT_EQ(calls, static_cast<int>(result.history.size()));
}

TEST(FusedCg, StopsExactlyAtMaxIterations) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(30), Format::Ell);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.cg_path = CgPath::Fused;
  options.max_iterations = 7;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::MaxIterations);
  EXPECT_EQ(result.iterations, 7);
  EXPECT_EQ(blas.counters().at("cg_update_xr").calls, 7u);
}

// The fused iteration is three kernels: no other Blas operation may grow with the iterations (the
// grouped solution's join once ran an AXPY of its own every 32 iterations, 3-6 us an iteration on the
// launch-bound small systems of an H100; it now runs inside cg_update_xr). Both formats' paths, with
// and without Jacobi.
TEST(FusedCg, LaunchesOnlyItsStepKernelsPerIteration) {
  const Precision widest = test::widest_device_precision(*test::context());
  for (Format format : {Format::Ell, Format::Hyb}) {
    for (bool jacobi : {false, true}) {
      SCOPED_TRACE(to_string(format) + (jacobi ? ", Jacobi" : ""));
      // The solver's counters, and the preconditioner's (its own Blas) under "M: ".
      auto counters_after = [&](int iterations) {
        System system(poisson2d(30), format);
        Blas blas(test::context(), Location::Device, widest);
        SolveOptions options;
        options.cg_path = CgPath::Fused;
        options.relative_tolerance = 0;
        options.max_iterations = iterations;
        std::map<std::string, OpCounters> all;
        if (jacobi) {
          Jacobi M(blas, system.A);
          cg(blas, system.A, M, system.b, system.x, options);
          for (const auto& [op, c] : M.blas().counters()) all["M: " + op] = c;
        } else {
          cg(blas, system.A, system.b, system.x, options);
        }
        for (const auto& [op, c] : blas.counters()) all[op] = c;
        return all;
      };
      const auto shorter = counters_after(70), longer = counters_after(140);
      int per_iteration = 0;
      for (const auto& [op, c] : longer) {
        const std::uint64_t grew = c.calls - (shorter.count(op) ? shorter.at(op).calls : 0);
        EXPECT_TRUE(grew == 0 || grew == 70) << op << ": " << grew << " more calls in 70 more iterations";
        per_iteration += grew == 70;
      }
      // The SpMV with p'q (HYB: the SpMV, then the partial sums), x and r, p; Jacobi: z = M^-1 r (the
      // preconditioner's) and r'z's partial sums too.
      EXPECT_EQ(per_iteration, (format == Format::Hyb ? 4 : 3) + (jacobi ? 2 : 0));
    }
  }
}

TEST(FusedCg, DiagonalSystemConvergesWithoutFalseBreakdown) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  // CG solves a multiple of the identity in one step; the step in flight after it then sees r = 0
  // and p'q = 0, which must not read as "not SPD".
  HostCsrMatrix A = test::from_entries(5, {{0, 0, 3.0}, {1, 1, 3.0}, {2, 2, 3.0}, {3, 3, 3.0}, {4, 4, 3.0}});
  System system(A, Format::Csr);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.cg_path = CgPath::Fused;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << to_string(result.status) << ": " << result.message;
  EXPECT_GE(result.iterations, 1);
  EXPECT_LE(result.iterations, 2);  // one step, plus the one in flight when r'r was seen (if it did a step)
  // One exact step: rounding only, 1e-15 in double; quasi-double's unit roundoff is 2^-44 (6e-14).
  EXPECT_LT(result.true_relative_residual, widest == Precision::Double ? 1e-15 : test::unit_roundoff(widest));
}

}  // namespace
}  // namespace clkr
