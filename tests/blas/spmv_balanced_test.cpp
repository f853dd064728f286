// The load-balanced CSR SpMV (kernels/spmv/csr_balanced.cl) against the long double reference, in every
// precision and (alpha, beta) variant and both blockings (work-group blocks, as on GPUs, and work-item
// blocks, as on CPUs), on a poisoned y: the awkward shapes of spmv_test_support.hpp, power-law matrices
// with rows of 1 to 10^4 entries, a matrix with one dense row and one dense column, blocks smaller than
// most rows; Kahan-compensated single; and when the automatic choice takes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

// SpmvParams that send every CSR matrix to the balanced kernels.
struct Blocking {
  std::string name;
  RowBlocking blocks;
  std::size_t work_group, entries_per_item;
};
const Blocking kBlockings[] = {
    {"work_group_64x4", RowBlocking::WorkGroup, 64, 4},
    {"work_group_32x1", RowBlocking::WorkGroup, 32, 1},  // blocks of 32 entries: most long rows alone
    {"work_group_256x8", RowBlocking::WorkGroup, 256, 8},
    {"work_item", RowBlocking::WorkItem, 1, 4},
};

SpmvParams balanced_params(const Blocking& b) {
  SpmvParams params;
  params.work_group_size = b.work_group;
  params.csr_balanced_min_row_ratio = 0;
  params.csr_balanced_entries_per_item = b.entries_per_item;
  params.csr_balanced_blocks = b.blocks;
  return params;
}

// Rows of 1 to 10^4 entries asked for: most of one or a few entries, the longest some thousands (the
// configuration model merges the repeated pairs of rows that long; the dense row below has 10^4).
HostCsrMatrix wide_powerlaw() {
  PowerLawOptions options;
  options.min_row_length = 1;
  options.max_row_length = 10000;
  options.exponent = 1.9;
  return powerlaw(20000, options);
}

class SpmvBalanced : public testing::TestWithParam<Precision> {};

TEST_P(SpmvBalanced, AwkwardShapes) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  for (const Blocking& b : kBlockings) {
    const SpmvParams params = balanced_params(b);
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (std::size_t s = 0; s < shapes().size(); ++s) {
      const Shape& shape = shapes()[s];
      const HostCsrMatrix H = random_matrix(shape, 300 + static_cast<std::uint32_t>(s));
      Matrix A(test_context(), H, Format::Csr);
      for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, b.name + " " + shape.name, run);
    }
  }
}

TEST_P(SpmvBalanced, PowerLawAndDenseRowAndColumn) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  const HostCsrMatrix wide = wide_powerlaw();
  std::int64_t longest = 0, shortest = wide.cols;
  for (std::int32_t i = 0; i < wide.rows; ++i) {
    longest = std::max<std::int64_t>(longest, wide.row_offsets[i + 1] - wide.row_offsets[i]);
    shortest = std::min<std::int64_t>(shortest, wide.row_offsets[i + 1] - wide.row_offsets[i]);
  }
  EXPECT_EQ(shortest, 1);
  EXPECT_GT(longest, 2000);
  const HostCsrMatrix arrow = dense_row_and_column(10000, 7000, 3);  // rows of 2, 3 and 10^4 entries
  for (const Blocking& b : kBlockings) {
    const SpmvParams params = balanced_params(b);
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (const auto& [name, H] : {std::pair<std::string, const HostCsrMatrix&>{"powerlaw 1..10^4", wide},
                                  std::pair<std::string, const HostCsrMatrix&>{"dense row and column", arrow}}) {
      Matrix A(test_context(), H, Format::Csr);
      for (const AlphaBeta& c : kTwoCases) check_spmv(A, H, p, c, b.name + " " + name, run);
    }
  }
}

// Through Blas with the device's own parameters: the automatic choice takes the balanced kernels for
// the power-law matrix (its longest row is 18x the mean, the default threshold 8x), and the result is
// the same as with the balanced kernels switched off.
TEST_P(SpmvBalanced, ChosenAutomaticallyForIrregularRows) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  const HostCsrMatrix H = powerlaw(3000);
  Matrix A(test_context(), H, Format::Csr);
  const MatrixStats& stats = A.stats();
  Blas blas(test_context(), Location::Device, p);
  EXPECT_TRUE(csr_balanced(blas.params().spmv, stats.mean_row_length, stats.max_row_length))
      << "mean " << stats.mean_row_length << ", longest " << stats.max_row_length;
  const auto run = [&](double alpha, Matrix& M, Vector& x, double beta, Vector& y) { blas.spmv(alpha, M, x, beta, y); };
  for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, "auto powerlaw:3000", run);

  const HostCsrMatrix regular = poisson2d(40);
  Matrix B(test_context(), regular, Format::Csr);
  EXPECT_FALSE(csr_balanced(blas.params().spmv, B.stats().mean_row_length, B.stats().max_row_length));
  SpmvParams off;
  off.csr_balanced_min_row_ratio = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(csr_balanced(off, stats.mean_row_length, stats.max_row_length));
  SpmvParams always;
  always.csr_balanced_min_row_ratio = 0;
  EXPECT_TRUE(csr_balanced(always, stats.mean_row_length, stats.max_row_length));
  EXPECT_FALSE(csr_balanced(always, 0.0, 0));  // no entries: nothing to balance
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, SpmvBalanced,
                         testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double), precision_name);

// Kahan-compensated single precision in both blockings (the work-group blocks keep each product's
// rounding error in local memory as well).
TEST(SpmvBalancedKahan, AllVariantsMatchReference) {
  for (const Blocking& b : kBlockings) {
    const SpmvParams params = balanced_params(b);
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, Precision::Single, true, alpha, A, x, beta, y);
    };
    for (const char* name : {"5x0", "1x1", "1025x300", "long_row_600x3100"}) {
      const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
      const HostCsrMatrix H = random_matrix(*shape, 17);
      Matrix A(test_context(), H, Format::Csr);
      for (const AlphaBeta& c : kAllCases) check_spmv(A, H, Precision::Single, c, b.name + " kahan " + name, run);
    }
  }
}

}  // namespace
}  // namespace clkr
