// The 64-bit row offset path (kernels built with -DWIDE_OFFSETS, offset_t = long) on small matrices:
// MatrixOptions::wide_offsets forces what a matrix past 2^31 - 1 entries gets anyway. Every CSR kernel
// (scalar, vector, blocks of rows per work-item, load-balanced in both blockings, Kahan single) in
// every precision and (alpha, beta) variant, on the awkward shapes, a power-law matrix and a dense row
// and column: against the long double reference, and bit for bit what the 32-bit offsets give (the
// same kernels, the same order of operations, only the offsets' width differs).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

MatrixOptions wide() {
  MatrixOptions options;
  options.wide_offsets = true;
  return options;
}

struct Kernel {
  std::string name;
  SpmvParams params;
  bool kahan = false;
};

std::vector<Kernel> csr_kernels() {
  std::vector<Kernel> kernels;
  SpmvParams scalar;
  scalar.csr_vector_min_mean_row_length = 1e9;
  scalar.csr_balanced_min_row_ratio = 1e9;
  kernels.push_back({"scalar", scalar});
  SpmvParams blocks = scalar;
  blocks.rows_per_work_item = 7;
  kernels.push_back({"scalar_7_rows_per_item", blocks});
  SpmvParams vector = scalar;
  vector.csr_vector_min_mean_row_length = 0;
  vector.vector_lanes = 8;
  kernels.push_back({"vector", vector});
  SpmvParams balanced_groups = scalar;
  balanced_groups.csr_balanced_min_row_ratio = 0;
  balanced_groups.work_group_size = 64;
  balanced_groups.csr_balanced_entries_per_item = 4;
  balanced_groups.csr_balanced_blocks = RowBlocking::WorkGroup;
  kernels.push_back({"balanced_work_group", balanced_groups});
  SpmvParams balanced_items = balanced_groups;
  balanced_items.csr_balanced_blocks = RowBlocking::WorkItem;
  kernels.push_back({"balanced_work_item", balanced_items});
  kernels.push_back({"scalar_kahan", scalar, true});
  return kernels;
}

std::vector<std::pair<std::string, HostCsrMatrix>> matrices() {
  std::vector<std::pair<std::string, HostCsrMatrix>> all;
  for (std::size_t s = 0; s < shapes().size(); ++s)
    all.emplace_back(shapes()[s].name, random_matrix(shapes()[s], 700 + static_cast<std::uint32_t>(s)));
  PowerLawOptions options;
  options.min_row_length = 1;
  options.max_row_length = 3000;
  all.emplace_back("powerlaw", powerlaw(4000, options));
  // Row 0 full, column 0 full, the diagonal: rows of 1, 2 and 1500 entries.
  all.emplace_back("dense_row_and_column", dense_row_and_column(1500, 0, 0));
  return all;
}

class SpmvWideOffsets : public testing::TestWithParam<Precision> {};

TEST_P(SpmvWideOffsets, EveryCsrKernelMatchesTheReferenceAndThe32BitOffsetsBitForBit) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  const auto& context = test_context();
  for (const auto& [name, H] : matrices()) {
    Matrix A(context, H, Format::Csr, wide());
    ASSERT_TRUE(A.csr_part().wide_offsets) << name;
    Matrix narrow(context, H, Format::Csr);
    ASSERT_FALSE(narrow.csr_part().wide_offsets) << name;
    for (const Kernel& k : csr_kernels()) {
      if (k.kahan && p != Precision::Single) continue;
      const auto run = [&](double alpha, Matrix& M, Vector& x, double beta, Vector& y) {
        detail::spmv_device(*context, k.params, p, k.kahan, alpha, M, x, beta, y);
      };
      for (const AlphaBeta& c : kAllCases) {
        const std::string what = name + " " + k.name;
        check_spmv(A, H, p, c, what + " (64-bit offsets)", run);
        // The same product with 32-bit offsets: identical bits.
        const std::vector<double> xv = random_vector(static_cast<std::size_t>(H.cols), 3);
        const std::vector<double> y0 = random_vector(static_cast<std::size_t>(H.rows), 4);
        Vector x(context, xv, "x"), y_wide(context, y0, "y wide"), y_narrow(context, y0, "y narrow");
        run(c.alpha, A, x, c.beta, y_wide);
        run(c.alpha, narrow, x, c.beta, y_narrow);
        ASSERT_EQ(read_device(y_wide, p), read_device(y_narrow, p))
            << what << " " << to_string(p) << " alpha=" << c.alpha << " beta=" << c.beta;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, SpmvWideOffsets,
                         testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double), precision_name);

TEST(SpmvWideOffsetsMatrix, ReadsBackConvertsAndCountsItsOffsetBytes) {
  const auto& context = test_context();
  const HostCsrMatrix H = random_matrix(shapes()[3], 17);
  Matrix A(context, H, Format::Csr, wide());
  expect_same_csr(A.to_host(), H, "wide CSR read back", context.get());
  EXPECT_EQ(A.diagonal(), Matrix(context, H, Format::Csr).diagonal());
  // SpMV's byte count has 8 bytes a row offset instead of 4.
  Matrix narrow(context, H, Format::Csr);
  const Precision p = context->info().fp64 ? Precision::Double : Precision::QuasiDouble;
  const double extra = detail::spmv_cost(A, p, 0).bytes - detail::spmv_cost(narrow, p, 0).bytes;
  EXPECT_DOUBLE_EQ(extra, 4.0 * (H.rows + 1));
  // Other formats index in 32 bits: converting there and back gives the same matrix, wide again in CSR.
  A.convert(Format::Ell);
  expect_same_csr(A.to_host(), H, "wide CSR to ELL", context.get());
  A.convert(Format::Csr);
  EXPECT_TRUE(A.csr_part().wide_offsets);
  expect_same_csr(A.to_host(), H, "back to CSR", context.get());
  // Row offsets of either width from the caller's arrays, uploaded in the width asked for.
  const std::vector<std::int32_t> offsets32(H.row_offsets.begin(), H.row_offsets.end());
  const CsrView view32(H.rows, H.cols, ArrayView<std::int32_t>(offsets32), H.col_indices, H.values);
  const CsrView view64(H.rows, H.cols, H.row_offsets, H.col_indices, H.values);
  EXPECT_FALSE(view32.row_offsets.wide());
  EXPECT_TRUE(view64.row_offsets.wide());
  for (const CsrView* view : {&view32, &view64})
    for (bool wide_offsets : {false, true}) {
      MatrixOptions options;
      options.wide_offsets = wide_offsets;
      Matrix M(context, *view, Format::Csr, options);
      EXPECT_EQ(M.csr_part().wide_offsets, wide_offsets);
      expect_same_csr(M.to_host(), H, "from a view", context.get());
    }
}

}  // namespace
}  // namespace clkr
