// SolveMonitor's explicit residual checks: a recursive residual that drifted from the true one makes
// the segment after a second failed check aim lower by the drift (so a solve whose floor is just
// below the tolerance still gets there), the true residual is still judged against the tolerance
// itself, and a restart that does not halve the true residual's excess over the tolerance ends the
// solve as Stagnated.
#include "solver/solve_monitor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "clkr/solver/options.hpp"

namespace clkr::detail {
namespace {

// A solve to 1e-8 of a system with ||b|| = 100 (the threshold: 1e-6).
struct Solve {
  SolveOptions options;
  SolveResult result;
  SolveMonitor monitor;
  // strengthen_check: where slow_convergence() answers (SolveOptions's default unless a test asks).
  explicit Solve(int strengthen_check = SolveOptions{}.strengthen_check)
      : options(tolerance(strengthen_check)), monitor(options, 100.0, result) {}
  static SolveOptions tolerance(int strengthen_check) {
    SolveOptions o;
    o.relative_tolerance = 1e-8;
    o.strengthen_check = strengthen_check;
    return o;
  }
  // The recursive residual met the tolerance at iteration 10 (0.9e-6); the true one was twice that.
  AfterCheck drift_twofold() {
    monitor.record(10, 0.9e-6);
    return monitor.check_explicit(10, 1.8e-6);
  }
};

// The first restart keeps the threshold (a fresh residual usually suffices). When the second check
// fails too (excess halved: 1.8e-6 -> 1.2e-6 against the recursive 0.9e-6), the drift
// sqrt(1.2^2 - 0.9^2) = 0.79e-6 makes the next segment aim at sqrt(1 - 0.63) = 0.608e-6.
TEST(SolveMonitor, AfterASecondDriftTheRecursiveResidualMustGoLower) {
  Solve s;
  EXPECT_TRUE(s.monitor.reached(1e-6));
  ASSERT_EQ(s.drift_twofold(), AfterCheck::Restart);
  EXPECT_DOUBLE_EQ(s.monitor.recursive_threshold(), 1e-6);
  s.monitor.record(12, 0.9e-6);
  ASSERT_EQ(s.monitor.check_explicit(12, 1.2e-6), AfterCheck::Restart);
  EXPECT_NEAR(s.monitor.recursive_threshold(), std::sqrt(0.37) * 1e-6, 1e-15);
  EXPECT_FALSE(s.monitor.reached(0.9e-6));
  EXPECT_FALSE(s.monitor.reached(0.62e-6));
  EXPECT_TRUE(s.monitor.reached(0.6e-6));
  // The explicit check judges against the tolerance, not the lowered aim.
  s.monitor.record(20, 0.6e-6);
  EXPECT_EQ(s.monitor.check_explicit(20, 0.8e-6), AfterCheck::Stop);
  EXPECT_EQ(s.result.status, SolveStatus::Converged) << s.result.message;
  EXPECT_EQ(s.result.iterations, 20);
}

// A drift as large as the threshold itself: aim at half of it, no lower (longer segments drift more).
TEST(SolveMonitor, ALargeDriftAimsAtHalfTheThreshold) {
  Solve s;
  ASSERT_EQ(s.drift_twofold(), AfterCheck::Restart);
  s.monitor.record(12, 0.5e-6);
  ASSERT_EQ(s.monitor.check_explicit(12, 1.3e-6), AfterCheck::Restart);  // drift 1.2e-6
  EXPECT_DOUBLE_EQ(s.monitor.recursive_threshold(), 0.5e-6);
}

// After 1.8e-6 (0.8e-6 above the threshold), a restart must halve that excess: 1.3e-6 goes on (the
// residual itself did not halve), 1.5e-6 is the floor.
TEST(SolveMonitor, ARestartThatDoesNotHalveTheExcessStagnates) {
  Solve going_on;
  ASSERT_EQ(going_on.drift_twofold(), AfterCheck::Restart);
  going_on.monitor.record(30, 0.5e-6);
  EXPECT_EQ(going_on.monitor.check_explicit(30, 1.3e-6), AfterCheck::Restart);

  Solve stuck;
  ASSERT_EQ(stuck.drift_twofold(), AfterCheck::Restart);
  stuck.monitor.record(30, 0.5e-6);
  EXPECT_EQ(stuck.monitor.check_explicit(30, 1.5e-6), AfterCheck::Stop);
  EXPECT_EQ(stuck.result.status, SolveStatus::Stagnated) << stuck.result.message;
}

TEST(SolveMonitor, ForgettingTheIterationsRestoresTheTolerance) {
  Solve s;
  ASSERT_EQ(s.drift_twofold(), AfterCheck::Restart);
  s.monitor.record(12, 0.9e-6);
  ASSERT_EQ(s.monitor.check_explicit(12, 1.2e-6), AfterCheck::Restart);
  ASSERT_FALSE(s.monitor.reached(0.9e-6));
  s.monitor.forget_iterations();
  EXPECT_TRUE(s.monitor.reached(0.9e-6));
}

// slow_convergence: asked at strengthen_check, twice it, four times it (and nowhere else), with the
// forecast from the rate between the windows ending at k/2 and at k. A residual falling by 10x every
// 10 iterations from 100 (1e-6 is the threshold) reaches it at iteration 80: at iteration 20 (norm
// 1) the forecast is 60 more.
TEST(SolveMonitor, ForecastsTheIterationsLeftAtTheChecks) {
  Solve s(20);
  std::vector<int> asked;
  for (int k = 0; k <= 200; ++k) {
    s.monitor.record(k, 100.0 * std::pow(10.0, -k / 10.0));
    if (const std::optional<SlowConvergence> slow = s.monitor.slow_convergence(k)) {
      asked.push_back(k);
      EXPECT_EQ(slow->iterations, k);
      EXPECT_NEAR(slow->forecast_iterations, std::max(80.0 - k, 0.0), 1e-6) << "at " << k;
      EXPECT_GE(slow->seconds_per_iteration, 0.0);
    }
  }
  EXPECT_EQ(asked, (std::vector<int>{20, 40, 80, 160}));
}

// A residual that has not fallen between the two windows (CG's hump on a stiff matrix) forecasts
// +inf; and once the preconditioner strengthened, no more asks, with the result saying where.
TEST(SolveMonitor, ANonFallingResidualForecastsInfinityAndAStrengtheningEndsTheAsks) {
  Solve s(16);
  for (int k = 0; k <= 16; ++k) s.monitor.record(k, 100.0 * (1 + k));
  const std::optional<SlowConvergence> slow = s.monitor.slow_convergence(16);
  ASSERT_TRUE(slow);
  EXPECT_TRUE(std::isinf(slow->forecast_iterations));
  s.monitor.strengthened(*slow, "a stronger one", 0.25);
  EXPECT_NE(s.result.strengthened.find("asked at iteration 16"), std::string::npos) << s.result.strengthened;
  EXPECT_NE(s.result.strengthened.find("a stronger one"), std::string::npos) << s.result.strengthened;
  for (int k = 17; k <= 64; ++k) {
    s.monitor.record(k, 1.0);
    EXPECT_FALSE(s.monitor.slow_convergence(k)) << k;
  }
}

// A check whose iteration was not asked about (it reached the tolerance and restarted) is made at the
// next one asked about, and the one after comes at twice that.
TEST(SolveMonitor, ACheckPassedOverIsMadeAtTheNextIteration) {
  Solve s(10);
  std::vector<int> asked;
  for (int k = 0; k <= 60; ++k) {
    s.monitor.record(k, 100.0);
    if (k == 10) continue;  // not asked about
    if (s.monitor.slow_convergence(k)) asked.push_back(k);
  }
  EXPECT_EQ(asked, (std::vector<int>{11, 22, 44}));
}

// strengthen_check 0: never asked.
TEST(SolveMonitor, NoChecksWhenTurnedOff) {
  Solve s(0);
  for (int k = 0; k <= 300; ++k) {
    s.monitor.record(k, 100.0);
    EXPECT_FALSE(s.monitor.slow_convergence(k)) << k;
  }
}

}  // namespace
}  // namespace clkr::detail
