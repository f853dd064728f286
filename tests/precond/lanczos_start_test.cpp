// The Lanczos start vector made by kernels/precond/lanczos_start.cl equals the host's bit for bit, at
// sizes around the launch's work-group multiples and for seeds with high bits set; its values are
// spread over [-0.5, 0.5) and differ between seeds.
#include "precond/lanczos_start.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "precond_test_support.hpp"

namespace clkr {
namespace {

TEST(LanczosStart, DeviceEqualsHostBitForBit) {
  for (test::Config config : {test::Config::Host, test::Config::GridStride, test::Config::Chunked8}) {
    const Location location = config == test::Config::Host ? Location::Host : Location::Device;
    if (test::device_lacks_fp64(location, Precision::Double)) continue;
    Blas blas = test::make_blas(config, Precision::Double);
    for (std::size_t n : {0, 1, 3, 63, 65, 1023, 1025, 4097}) {
      // One vector filled again for every seed, as a kept Lanczos work set is (its earlier values overwritten).
      Vector v(test::context(), std::vector<double>(n, 1e300), "v");
      for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{7}, (std::uint64_t{1} << 63) + 5}) {
        detail::fill_lanczos_start(blas, v, seed);
        EXPECT_EQ(v.to_host(), detail::lanczos_start_values(n, seed))
            << test::to_string(config) << ", n = " << n << ", seed " << seed;
      }
    }
  }
}

TEST(LanczosStart, ValuesAreSpreadAndDependOnTheSeed) {
  const std::vector<double> a = detail::lanczos_start_values(10000, 1), b = detail::lanczos_start_values(10000, 2);
  double sum = 0;
  for (double v : a) {
    ASSERT_GE(v, -0.5);
    ASSERT_LT(v, 0.5);
    sum += v;
  }
  EXPECT_LT(std::abs(sum / a.size()), 0.02);  // mean of 10^4 uniforms: standard deviation 0.003
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 0.49);
  EXPECT_LT(*std::min_element(a.begin(), a.end()), -0.49);
  int equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  EXPECT_EQ(equal, 0);
}

}  // namespace
}  // namespace clkr
