// The persistent CG kernel (chunks of iterations in one launch, grid barriers between the steps)
// against the fused path: same solution quality and iterations, every iteration logged across chunk
// boundaries, its breakdown checks, the Auto choice, and the fallback when its work-groups cannot all
// run at once. On PoCL the kernel runs with one work-group per core, which PoCL runs side by side.
#include <gtest/gtest.h>

#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "persistent_cg_support.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

using test::kPatientSpins;
using test::kShiftedKappa;
using test::persistent_blas;
using test::shifted_poisson;
using test::small_chunks;

using test::tolerance_for;

class PersistentCg : public ::testing::TestWithParam<std::tuple<Precision, std::size_t>> {};

TEST_P(PersistentCg, MatchesTheFusedIteration) {
  const auto [p, lanes] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const std::string path = test::matrix_path("nos3.mtx");  // 960 rows, 4 to 18 entries each
  ASSERT_FALSE(path.empty()) << "matrices/nos3.mtx is bundled";
  const HostCsrMatrix host = read_matrix_market(path);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  options.max_iterations = 5000;

  System system(host, Format::Csr);
  // The row sums' loads in groups of an awkward 3 (a GPU's default is 8, a CPU's 1): rows of 4-18
  // entries end inside a group.
  Blas blas = persistent_blas(p, small_chunks(lanes), 3);
  options.cg_path = CgPath::Persistent;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, 2 * test::condition_estimate(host));

  System fused_system(host, Format::Csr);
  Blas fused_blas(test::context(), Location::Device, p);
  options.cg_path = CgPath::Fused;
  const SolveResult fused = cg(fused_blas, fused_system.A, fused_system.b, fused_system.x, options);
  ASSERT_TRUE(fused.converged()) << fused.message;
  // The same iteration in another summation order (and the fused path stops one iteration late).
  const int slack = std::max(3, fused.iterations / 20);
  EXPECT_LE(std::abs(result.iterations - fused.iterations), slack) << result.iterations << " vs " << fused.iterations;

  const auto& counters = blas.counters();
  ASSERT_EQ(counters.count("cg_persistent"), 1u);
  EXPECT_EQ(counters.count("cg_update_xr"), 0u);  // no fallback
  // Launches of five iterations, two in flight: at least iterations / 5 of them.
  EXPECT_GE(counters.at("cg_persistent").calls, static_cast<std::uint64_t>(result.iterations / 5));
  EXPECT_GT(counters.at("cg_persistent").bytes, 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsAndLanes, PersistentCg,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{32})),
    [](const auto& info) {
      return to_string(std::get<0>(info.param)) + "_lanes" + std::to_string(std::get<1>(info.param));
    });

TEST(PersistentCgPath, SolvesPoissonWithRowsNotAMultipleOfTheBlock) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  const int grid = 23;  // 529 rows: 64-row blocks leave a partial one, dealt unevenly to two groups
  System system(poisson2d(grid), Format::Csr);
  Blas blas = persistent_blas(widest, small_chunks(1));
  SolveOptions options;
  options.relative_tolerance = 1e-11;
  options.cg_path = CgPath::Persistent;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, widest, 1e-11, test::poisson2d_condition(grid));
}

TEST(PersistentCgPath, HistoryHasEveryIterationOnceInOrder) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(15), Format::Csr);
  Blas blas = persistent_blas(widest, small_chunks(2));
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  options.record_history = true;
  int calls = 0;
  options.progress = [&](const IterationRecord&) { ++calls; };
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  ASSERT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations) + 1);
  for (std::size_t k = 0; k < result.history.size(); ++k) EXPECT_EQ(result.history[k].iteration, static_cast<int>(k));
  // The residual the kernel reports falls as CG's does: by orders of magnitude overall.
  EXPECT_LT(result.history.back().residual, 1e-6 * result.history.front().residual);
  EXPECT_EQ(calls, static_cast<int>(result.history.size()));
}

TEST(PersistentCgPath, StopsExactlyAtMaxIterations) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(30), Format::Csr);
  Blas blas = persistent_blas(widest, small_chunks(0));
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  options.max_iterations = 7;  // a chunk of five, then one of two
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::MaxIterations);
  EXPECT_EQ(result.iterations, 7);
  EXPECT_EQ(blas.counters().at("cg_persistent").calls, 2u);
}

TEST(PersistentCgPath, ReportsNotSpd) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  HostCsrMatrix indefinite = poisson2d(10);  // minus 4.5 I: eigenvalues on both sides of 0 (cg_test.cpp)
  for (std::int32_t i = 0; i < indefinite.rows; ++i) {
    for (std::int32_t k = indefinite.row_offsets[i]; k < indefinite.row_offsets[i + 1]; ++k) {
      if (indefinite.col_indices[k] == i) indefinite.values[k] -= 4.5;
    }
  }
  System system(indefinite, Format::Csr);
  Blas blas = persistent_blas(widest, small_chunks(0));
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
  EXPECT_NE(result.message.find("p'Ap"), std::string::npos) << result.message;
  EXPECT_LT(result.iterations, 20);
}

TEST(PersistentCgPath, DiagonalSystemConvergesInOneStep) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  HostCsrMatrix A = test::from_entries(5, {{0, 0, 3.0}, {1, 1, 3.0}, {2, 2, 3.0}, {3, 3, 3.0}, {4, 4, 3.0}});
  System system(A, Format::Csr);
  Blas blas = persistent_blas(widest, small_chunks(0));
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << to_string(result.status) << ": " << result.message;
  EXPECT_EQ(result.iterations, 1);  // the kernel stops itself: no step in flight
  // One exact step: rounding only, 1e-15 in double; quasi-double's unit roundoff is 2^-44 (6e-14).
  EXPECT_LT(result.true_relative_residual, widest == Precision::Double ? 1e-15 : test::unit_roundoff(widest));
}

TEST(PersistentCgPath, AutoTakesItUpToTheRowLimitOnly) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  SolveOptions options;  // CgPath::Auto
  {
    System system(poisson2d(12), Format::Csr);  // 144 rows
    Blas blas = persistent_blas(widest, CgParams{144, 64, 1, 64, 0, kPatientSpins});
    ASSERT_TRUE(cg(blas, system.A, system.b, system.x, options).converged());
    EXPECT_EQ(blas.counters().count("cg_persistent"), 1u);
    EXPECT_EQ(blas.counters().count("cg_update_xr"), 0u);
  }
  {
    System system(poisson2d(13), Format::Csr);  // 169 rows: over the limit
    Blas blas = persistent_blas(widest, CgParams{144, 64, 1, 64, 0, kPatientSpins});
    ASSERT_TRUE(cg(blas, system.A, system.b, system.x, options).converged());
    EXPECT_EQ(blas.counters().count("cg_persistent"), 0u);
    EXPECT_EQ(blas.counters().count("cg_update_xr"), 1u);
  }
  {
    System system(poisson2d(12), Format::Ell);  // not CSR
    Blas blas = persistent_blas(widest, CgParams{144, 64, 1, 64, 0, kPatientSpins});
    ASSERT_TRUE(cg(blas, system.A, system.b, system.x, options).converged());
    EXPECT_EQ(blas.counters().count("cg_persistent"), 0u);
  }
}

TEST(PersistentCgPath, AskedForOnAnotherFormatIsAnError) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(8), Format::Ell);
  Blas blas = persistent_blas(widest, small_chunks(0));
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  try {
    cg(blas, system.A, system.b, system.x, options);
    FAIL() << "persistent CG ran on ELL";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CSR"), std::string::npos) << e.what();
  }
}

// More work-groups than the device runs at once: 64 of 64 work-items per compute unit are more than any
// device holds (a CPU runs one group per core at a time; an NVIDIA SM at most 32 groups, 2048
// work-items), given rows for all of them (64 per group, one work-item per row). The probe before the
// first launch halves them until they all run (at one per compute unit at the latest), so the solve runs
// on the persistent kernel, and a second solve on the same context probes nothing.
TEST(PersistentCgPath, ProbesDownToTheGroupsThatRunAtOnce) {
  const Precision widest = test::widest_device_precision(*test::context());
  const double compute_units = static_cast<double>(std::max<cl_uint>(test::context()->info().compute_units, 1));
  const HostCsrMatrix shifted = shifted_poisson(64.0 * 64.0 * compute_units);
  Blas blas = persistent_blas(widest, CgParams{1u << 30, 64, 64, 5, 1, kPatientSpins});
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  options.relative_tolerance = 1e-10;
  std::uint64_t launches[2];
  for (int solve = 0; solve < 2; ++solve) {
    System system(shifted, Format::Csr);
    const auto before = test::context()->command_counts();
    const SolveResult result = cg(blas, system.A, system.b, system.x, options);
    launches[solve] = test::context()->command_counts().launches - before.launches;
    test::expect_solved(result, system, widest, 1e-10, kShiftedKappa);
    const auto& counters = blas.counters();
    ASSERT_EQ(counters.count("cg_persistent"), 1u);
    EXPECT_GT(counters.at("cg_persistent").flops, 0.0);  // iterations done by the persistent kernel
    EXPECT_EQ(counters.count("cg_update_xr"), 0u);       // and none by the fused path
    blas.reset_counters();
  }
  // The same solve twice; the first also launched the probes (at least the one of 64 per compute unit).
  EXPECT_GE(launches[0], launches[1] + 1) << launches[0] << " " << launches[1];
}

// An aborted launch (here every launch aborts at its first grid barrier: a spin limit of 0): the solve
// starts over on the fused path from the initial guess, with a history that starts over too. (A limit of
// one poll aborted at once on PoCL but let an H100's groups through a whole solve, 2026-12-08: a group
// gives up only when no other arrived between its polls. Real timeouts: grid_barrier_test.cpp.)
TEST(PersistentCgPath, FallsBackToTheFusedPathWhenABarrierTimesOut) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  const HostCsrMatrix shifted = shifted_poisson(64.0 * 64.0);
  System system(shifted, Format::Csr);
  const std::vector<double> x0 = test::random_vector(system.host.rows, 99);
  system.x = Vector(test::context(), x0, "x");
  Blas blas = persistent_blas(widest, CgParams{1u << 30, 64, 1, 5, 1, 0});
  SolveOptions options;
  options.cg_path = CgPath::Persistent;
  options.use_initial_guess = true;
  options.record_history = true;
  options.relative_tolerance = 1e-10;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, widest, 1e-10, kShiftedKappa);
  const auto& counters = blas.counters();
  ASSERT_EQ(counters.count("cg_persistent"), 1u);
  EXPECT_EQ(counters.at("cg_persistent").flops, 0.0);  // the aborted launches count no iterations
  EXPECT_EQ(counters.count("cg_update_xr"), 1u);
  ASSERT_FALSE(result.history.empty());
  EXPECT_EQ(result.history.front().iteration, 0);
  for (std::size_t k = 1; k < result.history.size(); ++k)
    EXPECT_GT(result.history[k].iteration, result.history[k - 1].iteration);
}

TEST(CgPathNames, RoundTripAndRejectUnknown) {
  for (CgPath path : {CgPath::Auto, CgPath::Persistent, CgPath::Fused, CgPath::Unfused})
    EXPECT_EQ(parse_cg_path(to_string(path)), path);
  EXPECT_EQ(parse_cg_path("PERSISTENT"), CgPath::Persistent);
  try {
    parse_cg_path("warp");
    FAIL() << "accepted 'warp'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("persistent"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
