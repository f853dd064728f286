// SELL-C-sigma (Format::Sell): the layout of a small matrix checked array by array, round trips of
// awkward matrices (empty rows, 0 and 1 rows, no columns, power-law rows) through every slice height and
// sort window, conversions, value updates, and the refusals (a bad layout, too much padding).
#include "../../src/data/sell_format.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;
using test::expect_same_csr;
using test::read;

// A matrix with the given row lengths, columns 0, 1, ... in each row, values 10 * row + column + 1.
HostCsrMatrix with_lengths(const std::vector<std::int32_t>& lengths, std::int32_t cols) {
  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(lengths.size());
  A.cols = cols;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    for (std::int32_t j = 0; j < lengths[i]; ++j) {
      A.col_indices.push_back(j);
      A.values.push_back(10.0 * i + j + 1);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

MatrixOptions layout(std::int32_t height, std::int32_t window) {
  MatrixOptions options;
  options.sell_slice_height = height;
  options.sell_sort_window = window;
  options.max_ell_fill_ratio = 1e9;  // padding is what some tests are about
  return options;
}

// Rows of 1, 3, 0, 2 and 4 entries, slices of 2 rows sorted within windows of 4: the first window sorts
// to rows 1 (3 entries), 3 (2), 0 (1), 2 (0), the second holds row 4 alone; the slices {1, 3} of width
// 3, {0, 2} of width 1 and {4, padding} of width 4 hold 6 + 2 + 8 entries.
TEST(SellFormat, SmallMatrixLayoutArrayByArray) {
  const HostCsrMatrix host = with_lengths({1, 3, 0, 2, 4}, 4);
  Matrix A(context(), host, Format::Sell, layout(2, 4));
  const Matrix::SellPart& sell = A.sell_part();
  EXPECT_EQ(sell.slice_height, 2);
  EXPECT_EQ(sell.slices, 3);
  EXPECT_EQ(sell.stored, 16);
  EXPECT_EQ(read<std::int32_t>(sell.rows, 5), (std::vector<std::int32_t>{1, 3, 0, 2, 4}));
  EXPECT_EQ(read<std::int32_t>(sell.slice_offsets, 4), (std::vector<std::int32_t>{0, 6, 8, 16}));
  // Column-major within a slice: entry j of its row i at offset + 2j + i; padding -1.
  EXPECT_EQ(read<std::int32_t>(sell.col_indices, 16),
            (std::vector<std::int32_t>{0, 0, 1, 1, 2, -1, 0, -1, 0, -1, 1, -1, 2, -1, 3, -1}));
  if (context()->info().fp64) {
    EXPECT_EQ(read<double>(A.sell_values(Precision::Double).primary, 8),
              (std::vector<double>{11, 31, 12, 32, 13, 0, 1, 0}));
  }
  // Device bytes: 4 slice offsets, 5 row numbers and 16 entries of 4 + 8 bytes.
  EXPECT_EQ(detail::sell_bytes(detail::sell_shape(host, {2, 4}), 5, 8), 4 * 4 + 5 * 4 + 16 * 12);
  EXPECT_THROW(A.csr_part(), Error);
  EXPECT_THROW(A.ell_part(), Error);
  expect_same_csr(A.to_host(), host, "small", context().get());
}

TEST(SellFormat, RoundTripsEveryShapeAndLayout) {
  PowerLawOptions wide;
  wide.min_row_length = 1;
  wide.max_row_length = 300;
  const std::vector<std::pair<std::string, HostCsrMatrix>> matrices = {
      {"0 rows", with_lengths({}, 5)},
      {"1 row", with_lengths({3}, 3)},
      {"1 empty row", with_lengths({0}, 3)},
      {"no columns", with_lengths({0, 0, 0}, 0)},
      {"empty rows", with_lengths({0, 2, 0, 0, 5, 1, 0, 3, 0, 0, 0, 4, 2}, 6)},
      {"powerlaw", powerlaw(1000, wide)},
  };
  const std::vector<std::pair<std::int32_t, std::int32_t>> layouts = {{1, 1}, {3, 5}, {4, 1}, {8, 64}, {32, 4096}};
  for (const auto& [name, host] : matrices) {
    for (const auto& [height, window] : layouts) {
      const std::string what = name + " C=" + std::to_string(height) + " sigma=" + std::to_string(window);
      Matrix A(context(), host, Format::Sell, layout(height, window));
      expect_same_csr(A.to_host(), host, what, context().get());
      EXPECT_EQ(A.sell_part().slices, (host.rows + height - 1) / height) << what;
    }
  }
}

TEST(SellFormat, ConvertsBothWaysAndUpdatesValues) {
  const HostCsrMatrix host = powerlaw(2000);
  Matrix A(context(), host, Format::Csr, layout(8, 64));
  A.convert(Format::Sell);
  expect_same_csr(A.to_host(), host, "CSR to SELL", context().get());
  HostCsrMatrix changed = host;
  for (double& v : changed.values) v = -v / 3;
  A.update_values(changed.values);
  expect_same_csr(A.to_host(), changed, "SELL after update_values", context().get());
  A.update_values(changed);
  A.convert(Format::Hyb);
  expect_same_csr(A.to_host(), changed, "SELL to HYB", context().get());
  const std::vector<double> nan(host.values.size(), std::numeric_limits<double>::quiet_NaN());
  Matrix B(context(), host, Format::Sell);
  EXPECT_THROW(B.update_values(nan), Error);
  expect_same_csr(B.to_host(), host, "unchanged after a refused update", context().get());
}

TEST(SellFormat, BadLayoutsAndTooMuchPaddingAreRefusedClearly) {
  const HostCsrMatrix host = with_lengths({1, 3, 0, 2, 4}, 4);
  for (const auto& [height, window] : std::vector<std::pair<std::int32_t, std::int32_t>>{{0, 4}, {2, 0}, {-1, 4}}) {
    try {
      Matrix A(context(), host, Format::Sell, layout(height, window));
      ADD_FAILURE() << "C=" << height << " sigma=" << window << " should be refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("sell_slice_height"), std::string::npos) << e.what();
    }
  }
  // One dense row among rows of 2 entries, unsorted slices of 32: its slice pads 31 rows to 2000.
  std::vector<std::int32_t> lengths(2000, 2);
  lengths[100] = 2000;
  MatrixOptions unsorted = layout(32, 1);
  unsorted.max_ell_fill_ratio = 3;
  try {
    Matrix A(context(), with_lengths(lengths, 2000), Format::Sell, unsorted);
    ADD_FAILURE() << "64,000 stored entries for 6,000 nonzeros should be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SELL refused"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("max_ell_fill_ratio"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_format("SELL"), Format::Sell);
  EXPECT_EQ(to_string(Format::Sell), "sell");
}

}  // namespace
}  // namespace clkr
