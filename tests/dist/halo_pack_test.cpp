// kernels/dist/halo_pack.cl against a host gather, at awkward sizes, with repeated and scattered
// indices, in every precision and both BLAS1 splits (chunked and grid-stride); and RowPartition,
// expand_rank_selector and the nnz-balanced partition, which need no other rank.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "clkr/blas/kernel_args.hpp"
#include "clkr/dist/rank_device.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

// out = x[indices] through the kernel, with the launch parameters `params`.
std::vector<double> pack(Precision p, const DeviceParams& params, const std::vector<double>& x,
                         const std::vector<std::int32_t>& indices) {
  BlasOptions options;
  options.params = params;
  Blas blas(context(), Location::Device, p, options);
  Vector xv(context(), x), out(context(), indices.size());
  cl::Buffer index_buffer = context()->allocate(std::max<std::size_t>(1, indices.size()) * 4, "indices");
  if (!indices.empty())
    context()->queue().enqueueWriteBuffer(index_buffer, CL_TRUE, 0, indices.size() * 4, indices.data());
  cl::Kernel& kernel = blas.elementwise_kernel("dist/halo_pack.cl", "halo_pack");
  KernelArgs(kernel, p)
      .value(cl_ulong{0})
      .value(cl_ulong{0})
      .value(index_buffer)
      .vector(xv.device(p, Access::Read))
      .vector(out.device(p, Access::Write));
  blas.launch_elementwise("halo_pack", kernel, indices.size(), 0, 0);
  return out.to_host();
}

TEST(HaloPack, GathersExactlyInEveryPrecisionAndSplit) {
  if (rank() != 0) GTEST_SKIP() << "a single-device kernel test: rank 0 runs it";
  const DeviceParams defaults = device_params(context()->info());
  DeviceParams chunked = defaults, strided = defaults;
  chunked.blas1.variant = Blas1Variant::Chunked;
  strided.blas1.variant = Blas1Variant::GridStride;
  const std::size_t wg = defaults.blas1.work_group_size;
  std::mt19937 engine(5);
  for (Precision p : kPrecisions) {
    if (!test::device_supports(*context(), p)) continue;
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, wg - 1, wg, wg + 1, std::size_t{1023},
                          std::size_t{1025}, std::size_t{4099}}) {
      // x is longer than the send buffer; indices repeat and jump around, the last x element included.
      const std::size_t length = 2 * n + 7;
      const std::vector<double> x = random_values(length, static_cast<unsigned>(n + 1));
      std::vector<std::int32_t> indices(n);
      std::uniform_int_distribution<std::int32_t> any(0, static_cast<std::int32_t>(length) - 1);
      for (auto& i : indices) i = any(engine);
      if (n > 0) indices.back() = static_cast<std::int32_t>(length) - 1;
      for (const DeviceParams& params : {chunked, strided}) {
        SCOPED_TRACE(to_string(p) + ", n = " + std::to_string(n) + ", " +
                     (params.blas1.variant == Blas1Variant::Chunked ? "chunked" : "grid-stride"));
        const std::vector<double> out = pack(p, params, x, indices);
        ASSERT_EQ(out.size(), n);
        // A gather moves values: exact up to the precision's own storage of x.
        const double tolerance = p == Precision::Single ? 0x1p-24 : p == Precision::QuasiDouble ? 0x1p-46 : 0.0;
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_LE(std::abs(out[i] - x[indices[i]]), tolerance * std::abs(x[indices[i]])) << "element " << i;
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
  std::vector<std::int32_t> offsets{0};
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
