// The row blocks of the load-balanced CSR kernels (src/data/row_blocks.cpp): every rule the kernels rely
// on, checked block by block on power-law matrices, a matrix with a dense row, empty rows, 0 and 1 rows;
// and Matrix::csr_row_blocks, which uploads them once per shape and only for CSR.
#include "../../src/data/row_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;

// Row offsets from row lengths.
std::vector<std::int64_t> offsets_of(const std::vector<std::int32_t>& lengths) {
  std::vector<std::int64_t> offsets{0};
  for (std::int32_t length : lengths) offsets.push_back(offsets.back() + length);
  return offsets;
}

// The blocks cover the rows in order, none empty, each within the shape's limits (a row longer than
// max_cost alone in its block), and each but the last full: the next row would not have fitted.
void expect_valid(const std::vector<std::int64_t>& offsets, const Matrix::RowBlockShape& shape,
                  const std::vector<std::int32_t>& first_rows, const std::string& what) {
  const auto rows = static_cast<std::int32_t>(offsets.size()) - 1;
  ASSERT_FALSE(first_rows.empty()) << what;
  EXPECT_EQ(first_rows.front(), 0) << what;
  EXPECT_EQ(first_rows.back(), rows) << what;
  const bool per_group = shape.max_rows > 0;
  for (std::size_t b = 0; b + 1 < first_rows.size(); ++b) {
    const std::int32_t r0 = first_rows[b], r1 = first_rows[b + 1];
    ASSERT_LT(r0, r1) << what << ": block " << b << " is empty";
    std::int64_t entries = offsets[r1] - offsets[r0], longest = 0;
    for (std::int32_t i = r0; i < r1; ++i) longest = std::max<std::int64_t>(longest, offsets[i + 1] - offsets[i]);
    const std::int64_t cost = per_group ? entries : entries + (r1 - r0);
    if (r1 - r0 > 1) {
      EXPECT_LE(cost, shape.max_cost) << what << ": block " << b;
      if (per_group) {
        EXPECT_LE(r1 - r0, shape.max_rows) << what << ": block " << b;
        EXPECT_LE((r1 - r0) * longest, 2 * shape.max_cost) << what << ": block " << b;
      }
    }
    if (r1 < rows) {  // the next row did not fit: a limit, or this block is a long row alone
      const std::int64_t next = offsets[r1 + 1] - offsets[r1];
      const bool alone = per_group && r1 - r0 == 1 && entries > shape.max_cost;
      const bool over =
          cost + (per_group ? next : next + 1) > shape.max_cost ||
          (per_group && (r1 - r0 + 1 > shape.max_rows || (r1 - r0 + 1) * std::max(longest, next) > 2 * shape.max_cost));
      EXPECT_TRUE(alone || over) << what << ": block " << b << " ends at row " << r1 << " with room left";
    }
  }
}

TEST(RowBlocks, PowerLawRowsInWorkGroupAndWorkItemBlocks) {
  PowerLawOptions options;
  options.min_row_length = 1;
  options.max_row_length = 3000;
  const HostCsrMatrix A = powerlaw(5000, options);
  for (const Matrix::RowBlockShape shape :
       {Matrix::RowBlockShape{256, 64}, Matrix::RowBlockShape{1024, 256}, Matrix::RowBlockShape{7, 3},
        Matrix::RowBlockShape{A.nnz() / 7, 0}, Matrix::RowBlockShape{1, 0}}) {
    const std::string what =
        "max_cost " + std::to_string(shape.max_cost) + " max_rows " + std::to_string(shape.max_rows);
    expect_valid(A.row_offsets, shape, detail::row_blocks(A.row_offsets, shape), what);
  }
  // Work-item blocks of (entries + rows) / 8: eight blocks, or nine when rows straddle the cuts.
  const Matrix::RowBlockShape eighth{(A.nnz() + A.rows + 7) / 8, 0};
  const std::size_t blocks = detail::row_blocks(A.row_offsets, eighth).size() - 1;
  EXPECT_GE(blocks, 8u);
  EXPECT_LE(blocks, 9u);
}

TEST(RowBlocks, DenseRowEmptyRowsAndTinyMatrices) {
  std::vector<std::int32_t> lengths(300, 3);
  lengths[100] = 5000;                                     // a dense row: a block of its own
  for (std::size_t i = 200; i < 260; ++i) lengths[i] = 0;  // empty rows
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const Matrix::RowBlockShape group{64, 32};
  const std::vector<std::int32_t> first_rows = detail::row_blocks(offsets, group);
  expect_valid(offsets, group, first_rows, "dense row");
  EXPECT_NE(std::find(first_rows.begin(), first_rows.end(), 100), first_rows.end());
  EXPECT_NE(std::find(first_rows.begin(), first_rows.end(), 101), first_rows.end());
  expect_valid(offsets, {50, 0}, detail::row_blocks(offsets, {50, 0}), "dense row, work items");

  EXPECT_EQ(detail::row_blocks({0}, group), std::vector<std::int32_t>{0});  // no rows, no blocks
  EXPECT_EQ(detail::row_blocks({0, 0}, group), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(detail::row_blocks({0, 9}, group), (std::vector<std::int32_t>{0, 1}));
  EXPECT_THROW(detail::row_blocks(offsets, {0, 32}), Error);
  EXPECT_THROW(detail::row_blocks(offsets, {64, -1}), Error);
}

TEST(RowBlocks, MatrixKeepsOneUploadPerShapeForCsrOnly) {
  const HostCsrMatrix host = powerlaw(2000);
  Matrix A(context(), host, Format::Csr);
  const Matrix::RowBlocks& blocks = A.csr_row_blocks({512, 64});
  const std::vector<std::int32_t> expected = detail::row_blocks(host.row_offsets, {512, 64});
  ASSERT_EQ(blocks.count + 1, static_cast<std::int32_t>(expected.size()));
  std::vector<std::int32_t> device(expected.size());
  context()->queue().enqueueReadBuffer(blocks.first_rows, CL_TRUE, 0, device.size() * 4, device.data());
  EXPECT_EQ(device, expected);
  EXPECT_EQ(&A.csr_row_blocks({512, 64}), &blocks);               // kept, not rebuilt
  EXPECT_NE(&A.csr_row_blocks({512, 0}), &blocks);                // another shape, other blocks
  A.update_values(std::vector<double>(host.values.size(), 2.0));  // same pattern: blocks stay valid
  EXPECT_EQ(&A.csr_row_blocks({512, 64}), &blocks);

  Matrix ell(context(), host, Format::Hyb);
  EXPECT_THROW(ell.csr_row_blocks({512, 64}), Error);
  Matrix empty(context(), HostCsrMatrix{}, Format::Csr);
  EXPECT_EQ(empty.csr_row_blocks({512, 64}).count, 0);
}

}  // namespace
}  // namespace clkr
