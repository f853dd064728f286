// The device prefix sum (scan.cl) against a host prefix sum, at sizes around work-group and chunk
// boundaries, in every launch shape, alone, in pairs read with one wait and without a read, and its
// refusal of totals past 2^31 - 1.
#include "precond/amg/device_scan.hpp"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "../precision_support.hpp"
#include "clkr/runtime/error.hpp"
#include "device_setup_test_support.hpp"

namespace clkr {
namespace {

TEST(DeviceScan, MatchesTheHostPrefixSum) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  std::mt19937 rng(7);
  for (const test::SetupShape& shape : test::setup_shapes()) {
    const auto kernels = test::setup_kernels(shape);
    const std::int32_t wg = static_cast<std::int32_t>(kernels.params().work_group_size);
    // Around a work-group, a work-group's tile of 16 elements each, and the 16 * wg chunks' cap.
    for (std::int32_t n :
         {0, 1, 3, wg - 1, wg, wg + 1, 16 * wg - 1, 16 * wg + 1, 1023, 1025, 16 * wg * wg + 3, 200001}) {
      if (n < 0) continue;
      std::vector<cl_int> counts(static_cast<std::size_t>(n) + 1, -1);  // the last slot is the output's
      for (std::int32_t i = 0; i < n; ++i) counts[i] = static_cast<cl_int>(rng() % 9);
      const cl::Buffer values = test::device_array(counts);
      const std::int32_t total = detail::amg::exclusive_scan(kernels, values, n, "test counts");
      const std::vector<cl_int> offsets = test::read_array<cl_int>(values, counts.size());
      std::int64_t sum = 0;
      for (std::int32_t i = 0; i <= n; ++i) {
        ASSERT_EQ(offsets[i], sum) << shape.name << ", n " << n << ", i " << i;
        if (i < n) sum += counts[i];
      }
      EXPECT_EQ(total, sum) << shape.name << ", n " << n;
    }
  }
}

// Two scans whose totals come back in one read, and a scan whose total is not read: the same offsets,
// and one wait for the two, none for the third.
TEST(DeviceScan, PairsReadTogetherAndKnownTotalsNotAtAll) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const auto kernels = test::setup_kernels(test::setup_shapes()[0]);
  for (std::int32_t n : {0, 1, 1000, 70001}) {
    std::vector<cl_int> a(static_cast<std::size_t>(n) + 1, 0), b = a;
    for (std::int32_t i = 0; i < n; ++i) {
      a[i] = i % 5;
      b[i] = (i * 7) % 3;
    }
    const cl::Buffer da = test::device_array(a), db = test::device_array(b), dc = test::device_array(a);
    const CommandCounts before = test::amg_context()->command_counts();
    const auto totals = detail::amg::exclusive_scans(kernels, da, db, n, "a", "b");
    EXPECT_EQ((test::amg_context()->command_counts() - before).waits, 1u) << n;
    const CommandCounts known = test::amg_context()->command_counts();
    detail::amg::exclusive_scan_of_known_total(kernels, dc, n);
    EXPECT_EQ((test::amg_context()->command_counts() - known).waits, 0u) << n;
    for (const auto& [counts, device, total] :
         {std::tuple{a, da, totals[0]}, std::tuple{b, db, totals[1]}, std::tuple{a, dc, std::int32_t{-1}}}) {
      const std::vector<cl_int> offsets = test::read_array<cl_int>(device, counts.size());
      std::int64_t sum = 0;
      for (std::int32_t i = 0; i <= n; ++i) {
        ASSERT_EQ(offsets[i], sum) << "n " << n << ", i " << i;
        if (i < n) sum += counts[i];
      }
      if (total >= 0) EXPECT_EQ(total, sum) << n;
    }
  }
}

TEST(DeviceScan, RefusesATotalPastTheIndexRange) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const auto kernels = test::setup_kernels(test::setup_shapes()[0]);
  const cl::Buffer values = test::device_array(std::vector<cl_int>{1 << 30, 1 << 30, 1 << 30, 0});
  try {
    detail::amg::exclusive_scan(kernels, values, 3, "a huge product");
    FAIL() << "a total of 3 * 2^30 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a huge product has 3221225472 entries"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
