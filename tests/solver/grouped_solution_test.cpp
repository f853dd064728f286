// GroupedSolution: CG's steps summed apart from x and joined every kGroup steps lose less to rounding
// than steps added to x one by one, when x is far larger than a step (the attainable accuracy of CG
// on stiff matrices); and joined() is x plus every step.
#include "solver/grouped_solution.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "solver_test_support.hpp"

namespace clkr::detail {
namespace {

class GroupedSteps : public ::testing::TestWithParam<Location> {
 protected:
  void SetUp() override {
    if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  }
};

// ||x - reference|| in long double.
long double distance(const std::vector<double>& x, const std::vector<long double>& reference) {
  long double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double d = x[i] - reference[i];
    sum += d * d;
  }
  return std::sqrt(sum);
}

// x of order 1e6, 4096 steps of order 1: each x += p rounds to x's ulp (2.3e-10), a random walk over
// 4096 roundings; grouped, 128 joins round to it, and the sums within a group to a step's ulp. The
// errors' ratio is about sqrt(32) = 5.7; at least 3 is asked.
TEST_P(GroupedSteps, LoseLessToRoundingThanStepsAddedOneByOne) {
  const std::size_t n = 4096;
  const int steps = 4096;
  Blas blas(test::context(), GetParam(), Precision::Double);
  std::vector<double> start = test::random_vector(n, 3);
  for (double& v : start) v = 1e6 * (2.0 + v);
  std::vector<long double> reference(start.begin(), start.end());
  Vector one_by_one(test::context(), start), grouped_x(test::context(), start);
  GroupedSolution grouped(blas, grouped_x);
  for (int k = 1; k <= steps; ++k) {
    const std::vector<double> step = test::random_vector(n, 100 + static_cast<unsigned>(k));
    for (std::size_t i = 0; i < n; ++i) reference[i] += step[i];
    Vector p(test::context(), step);
    blas.axpy(1.0, p, one_by_one);
    blas.axpy(1.0, p, grouped.steps());
    grouped.after_step(k);
  }
  const long double direct_error = distance(one_by_one.to_host(), reference);
  const long double grouped_error = distance(grouped.joined().to_host(), reference);
  EXPECT_GT(direct_error, 0.0L);
  EXPECT_LT(3 * grouped_error, direct_error)
      << "one by one " << static_cast<double>(direct_error) << ", grouped " << static_cast<double>(grouped_error);
}

// joined() mid-group: x holds every step so far, and the next steps start from a zero sum.
TEST_P(GroupedSteps, JoinedHoldsEveryStepSoFar) {
  const std::size_t n = 1025;
  Blas blas(test::context(), GetParam(), Precision::Double);
  const std::vector<double> start = test::random_vector(n, 7);
  Vector x(test::context(), start);
  GroupedSolution grouped(blas, x);
  std::vector<double> expected = start;
  for (int k = 1; k <= 5; ++k) {
    const std::vector<double> step = test::random_vector(n, 50 + static_cast<unsigned>(k));
    for (std::size_t i = 0; i < n; ++i) expected[i] += 0.5 * step[i];
    Vector p(test::context(), step);
    blas.axpy(0.5, p, grouped.steps());
    grouped.after_step(k);
    if (k == 3) {
      const std::vector<double> now = grouped.joined().to_host();
      for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(now[i], expected[i], 1e-14) << "row " << i;
    }
  }
  const std::vector<double> end = grouped.joined().to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(end[i], expected[i], 1e-14) << "row " << i;
}

INSTANTIATE_TEST_SUITE_P(Locations, GroupedSteps, ::testing::Values(Location::Device, Location::Host),
                         [](const auto& info) { return info.param == Location::Device ? "Device" : "Host"; });

}  // namespace
}  // namespace clkr::detail
