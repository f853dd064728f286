// kernels/dist/halo.cl against host loops (halo_pack: a gather with repeated and scattered indices;
// halo_add: a scatter-add into a subset of rows) at awkward sizes, in every precision and both BLAS1
// splits (chunked and grid-stride); and RowPartition, expand_rank_selector and the nnz-balanced
// partition, which need no other rank.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "clkr/blas/kernel_args.hpp"
#include "clkr/dist/rank_device.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

// Runs kernel `name` of halo.cl, (n, chunk, indices, in, out) with n = indices.size(), with the launch
// parameters `params`; returns `out` afterwards.
std::vector<double> run_halo_kernel(const std::string& name, Precision p, const DeviceParams& params,
                                    const std::vector<std::int32_t>& indices, const std::vector<double>& in,
                                    const std::vector<double>& out) {
  BlasOptions options;
  options.params = params;
  Blas blas(context(), Location::Device, p, options);
  Vector in_vector(context(), in), out_vector(context(), out);
  cl::Buffer index_buffer = context()->allocate(std::max<std::size_t>(1, indices.size()) * 4, "indices");
  if (!indices.empty())
    context()->queue().enqueueWriteBuffer(index_buffer, CL_TRUE, 0, indices.size() * 4, indices.data());
  cl::Kernel& kernel = blas.elementwise_kernel("dist/halo.cl", name);
  KernelArgs(kernel, p)
      .value(cl_ulong{0})
      .value(cl_ulong{0})
      .value(index_buffer)
      .vector(in_vector.device(p, Access::Read))
      .vector(out_vector.device(p, Access::ReadWrite));
  blas.launch_elementwise(name, kernel, indices.size(), 0, 0);
  return out_vector.to_host();
}

TEST(HaloKernels, PackGathersExactlyInEveryPrecisionAndSplit) {
  if (rank() != 0) GTEST_SKIP() << "a single-device kernel test: rank 0 runs it";
  std::mt19937 engine(5);
  for (Precision p : kPrecisions) {
    if (!test::device_supports(*context(), p)) continue;
    for (std::size_t n : awkward_sizes()) {
      // x is longer than the send buffer; indices repeat and jump around, the last x element included.
      const std::size_t length = 2 * n + 7;
      const std::vector<double> x = random_values(length, static_cast<unsigned>(n + 1));
      std::vector<std::int32_t> indices(n);
      std::uniform_int_distribution<std::int32_t> any(0, static_cast<std::int32_t>(length) - 1);
      for (auto& i : indices) i = any(engine);
      if (n > 0) indices.back() = static_cast<std::int32_t>(length) - 1;
      for (const DeviceParams& params : both_splits()) {
        SCOPED_TRACE(to_string(p) + ", n = " + std::to_string(n) + ", " + to_string(params.blas1.variant));
        const std::vector<double> out = run_halo_kernel("halo_pack", p, params, indices, x, std::vector<double>(n));
        ASSERT_EQ(out.size(), n);
        // A gather moves values: exact up to the precision's own storage of x.
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_LE(std::abs(out[i] - x[indices[i]]), unit(p) * std::abs(x[indices[i]])) << "element " << i;
      }
    }
  }
}

TEST(HaloKernels, AddScattersIntoItsRowsOnlyInEveryPrecisionAndSplit) {
  if (rank() != 0) GTEST_SKIP() << "a single-device kernel test: rank 0 runs it";
  std::mt19937 engine(9);
  for (Precision p : kPrecisions) {
    if (!test::device_supports(*context(), p)) continue;
    for (std::size_t n : awkward_sizes()) {
      // n distinct ascending rows out of 3n + 5, the first and the last among them.
      const std::size_t length = 3 * n + 5;
      std::vector<std::int32_t> all(length);
      for (std::size_t i = 0; i < length; ++i) all[i] = static_cast<std::int32_t>(i);
      std::shuffle(all.begin() + 1, all.end() - 1, engine);
      std::vector<std::int32_t> rows(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
      if (n > 1) rows[1] = static_cast<std::int32_t>(length) - 1;
      std::sort(rows.begin(), rows.end());
      const std::vector<double> t = random_values(n, 17), y = random_values(length, 19);
      std::vector<double> expected = y;
      for (std::size_t i = 0; i < n; ++i) expected[rows[i]] += t[i];
      for (const DeviceParams& params : both_splits()) {
        SCOPED_TRACE(to_string(p) + ", n = " + std::to_string(n) + ", " + to_string(params.blas1.variant));
        const std::vector<double> out = run_halo_kernel("halo_add", p, params, rows, t, y);
        ASSERT_EQ(out.size(), length);
        // One rounded addition of stored values (rows without a product keep y as stored).
        for (std::size_t i = 0; i < length; ++i)
          ASSERT_LE(std::abs(out[i] - expected[i]), 4 * unit(p) * (std::abs(y[i]) + 1)) << "row " << i;
      }
    }
  }
}

TEST(RowPartition, ValidatesAndFindsOwners) {
  const RowPartition p({0, 0, 5, 5, 9});
  EXPECT_EQ(p.ranks(), 4);
  EXPECT_EQ(p.rows(), 9);
  EXPECT_EQ(p.count(0), 0);
  EXPECT_EQ(p.owner(0), 1);
  EXPECT_EQ(p.owner(4), 1);
  EXPECT_EQ(p.owner(5), 3);
  EXPECT_EQ(p.owner(8), 3);
  EXPECT_THROW(p.owner(9), Error);
  EXPECT_THROW(RowPartition({1, 5}), Error);
  EXPECT_THROW(RowPartition({0, 5, 4}), Error);
  EXPECT_THROW(RowPartition(std::vector<std::int64_t>{0}), Error);
  EXPECT_EQ(RowPartition::uniform(10, 4).offsets(), (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  EXPECT_EQ(RowPartition::uniform(2, 3).offsets(), (std::vector<std::int64_t>{0, 1, 2, 2}));
}

TEST(RowPartition, BalancedByNonzerosEvensOutTheWork) {
  // Rows 0-9 hold 1 entry each, rows 10-11 hold 9 each: work 2 per light row, 10 per heavy one (40 in all).
  std::vector<std::int64_t> offsets{0};
  for (int i = 0; i < 12; ++i) offsets.push_back(offsets.back() + (i < 10 ? 1 : 9));
  const RowPartition p = RowPartition::balanced_by_nnz(offsets, 2);
  EXPECT_EQ(p.offsets(), (std::vector<std::int64_t>{0, 10, 12}));  // 20 and 20
  const RowPartition four = RowPartition::balanced_by_nnz(offsets, 4);
  EXPECT_EQ(four.offsets(), (std::vector<std::int64_t>{0, 5, 10, 11, 12}));  // 10 each
}

TEST(RankSelector, ExpandsRanks) {
  EXPECT_EQ(expand_rank_selector("0:%l", 5, 1), "0:1");
  EXPECT_EQ(expand_rank_selector("gpu%r-%%", 12, 0), "gpu12-%");
  EXPECT_EQ(expand_rank_selector("", 3, 3), "");
  EXPECT_THROW(expand_rank_selector("1:%d", 0, 0), Error);
  EXPECT_THROW(expand_rank_selector("1:%", 0, 0), Error);
}

}  // namespace
}  // namespace clkr::dist_test
