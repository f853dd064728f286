// SolveMonitor's explicit residual checks: a recursive residual that drifted from the true one makes
// the next segment aim lower by the drift (so a solve near its precision's floor can still get there),
// the true residual is still judged against the tolerance itself, and a restart that does not halve
// the true residual still ends the solve as Stagnated.
#include "solver/solve_monitor.hpp"

#include <gtest/gtest.h>

#include "clkr/solver/options.hpp"

namespace clkr::detail {
namespace {

// A solve to 1e-8 of a system with ||b|| = 100 (the threshold: 1e-6).
struct Solve {
  SolveOptions options;
  SolveResult result;
  SolveMonitor monitor;
  Solve() : options(tolerance()), monitor(options, 100.0, result) {}
  static SolveOptions tolerance() {
    SolveOptions o;
    o.relative_tolerance = 1e-8;
    return o;
  }
  // The recursive residual met the tolerance at iteration 10 (0.9e-6); the true one was twice that.
  AfterCheck drift_twofold() {
    monitor.record(10, 0.9e-6);
    return monitor.check_explicit(10, 1.8e-6);
  }
};

TEST(SolveMonitor, AfterADriftTheRecursiveResidualMustGoLower) {
  Solve s;
  EXPECT_TRUE(s.monitor.reached(1e-6));
  EXPECT_TRUE(s.monitor.reached(0.9e-6));
  // The next segment must reach 0.5 * 1e-6 * 0.9 / 1.8.
  ASSERT_EQ(s.drift_twofold(), AfterCheck::Restart);
  EXPECT_FALSE(s.monitor.reached(0.9e-6));
  EXPECT_FALSE(s.monitor.reached(2.6e-7));
  EXPECT_TRUE(s.monitor.reached(2.5e-7));
  EXPECT_DOUBLE_EQ(s.monitor.recursive_threshold(), 2.5e-7);
  // The explicit check judges against the tolerance, not the lowered aim.
  s.monitor.record(20, 2.4e-7);
  EXPECT_EQ(s.monitor.check_explicit(20, 0.8e-6), AfterCheck::Stop);
  EXPECT_EQ(s.result.status, SolveStatus::Converged) << s.result.message;
  EXPECT_EQ(s.result.iterations, 20);
}

TEST(SolveMonitor, ARestartThatDoesNotHalveTheTrueResidualStagnates) {
  Solve s;
  ASSERT_EQ(s.drift_twofold(), AfterCheck::Restart);
  s.monitor.record(30, 2.0e-7);
  EXPECT_EQ(s.monitor.check_explicit(30, 1.2e-6), AfterCheck::Stop);  // 1.2 > 1.8 / 2
  EXPECT_EQ(s.result.status, SolveStatus::Stagnated) << s.result.message;
}

// A second failed check lowers the aim again, by its own drift.
TEST(SolveMonitor, EachFurtherDriftLowersTheAim) {
  Solve s;
  s.monitor.record(10, 1e-6);
  ASSERT_EQ(s.monitor.check_explicit(10, 4e-6), AfterCheck::Restart);  // aim 1.25e-7
  s.monitor.record(20, 1.2e-7);
  ASSERT_FALSE(s.monitor.reached(1.3e-7));
  ASSERT_EQ(s.monitor.check_explicit(20, 1.5e-6), AfterCheck::Restart);  // 1.5 < 4 / 2; aim 0.5e-6 * 1.2 / 15
  EXPECT_FALSE(s.monitor.reached(4.1e-8));
  EXPECT_TRUE(s.monitor.reached(3.9e-8));
}

TEST(SolveMonitor, ForgettingTheIterationsRestoresTheTolerance) {
  Solve s;
  ASSERT_EQ(s.drift_twofold(), AfterCheck::Restart);
  ASSERT_FALSE(s.monitor.reached(0.9e-6));
  s.monitor.forget_iterations();
  EXPECT_TRUE(s.monitor.reached(0.9e-6));
}

}  // namespace
}  // namespace clkr::detail
