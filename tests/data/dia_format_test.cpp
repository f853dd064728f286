// DIA (Format::Dia): the layout of a small rectangular matrix checked array by array (an explicit zero
// kept, padding not), round trips of awkward matrices (0 and 1 rows, no columns, empty rows, diagonals
// at the matrix's corners, rectangular), conversions, the statistics' count of diagonals, value
// updates, and the refusals (too many diagonals, too much padding, a bad limit), which allocate nothing.
#include "../../src/data/dia_format.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
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

// A rows x cols matrix from its rows of (column, value), validated.
HostCsrMatrix validated_from_rows(std::int32_t rows, std::int32_t cols,
                                  const std::vector<std::vector<std::pair<std::int32_t, double>>>& entries) {
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (const auto& row : entries) {
    for (const auto& [c, v] : row) {
      A.col_indices.push_back(c);
      A.values.push_back(v);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// 4 x 5: row 0 on diagonals 0 and 4, row 1 on -1, 0 (an explicit zero) and 1, row 2 empty, row 3 on
// -3, 0 and 1. Diagonals -3, -1, 0, 1, 4 at pitch 32: slot d * 32 + i.
HostCsrMatrix small_matrix() {
  return validated_from_rows(4, 5, {{{0, 1}, {4, 2}}, {{0, 3}, {1, 0}, {2, 4}}, {}, {{0, 5}, {3, 6}, {4, 7}}});
}

TEST(DiaFormat, SmallMatrixLayoutArrayByArray) {
  const HostCsrMatrix host = small_matrix();
  Matrix A(context(), host, Format::Dia);
  const Matrix::DiaPart& dia = A.dia_part();
  EXPECT_EQ(dia.diagonals, 5);
  EXPECT_EQ(dia.pitch, 32);
  // Slots inside the matrix: diagonal -3 in row 3, -1 in rows 1-3, 0 and 1 in rows 0-3, 4 in row 0.
  EXPECT_EQ(dia.inside, 1 + 3 + 4 + 4 + 1);
  EXPECT_EQ(read<std::int32_t>(dia.offsets, 5), (std::vector<std::int32_t>{-3, -1, 0, 1, 4}));
  // One word per diagonal: (3,0) | (1,0) | (0,0), (1,1), (3,3) | (1,2), (3,4) | (0,4).
  EXPECT_EQ(read<std::uint32_t>(dia.present, 5), (std::vector<std::uint32_t>{8, 2, 1 + 2 + 8, 2 + 8, 1}));
  if (context()->info().fp64) {
    std::vector<double> expected(160, 0.0);
    expected[0 * 32 + 3] = 5;
    expected[1 * 32 + 1] = 3;
    expected[2 * 32 + 0] = 1;
    expected[2 * 32 + 3] = 6;
    expected[3 * 32 + 1] = 4;
    expected[3 * 32 + 3] = 7;
    expected[4 * 32 + 0] = 2;
    EXPECT_EQ(read<double>(A.dia_values(Precision::Double).primary, 160), expected);
  }
  expect_same_csr(A.to_host(), host, "to_host", context().get());  // the explicit zero of row 1 kept
  EXPECT_EQ(A.stats().diagonals, 5);
  // Offsets, presence bits and 5 x 32 double values.
  EXPECT_EQ(A.stats().bytes_per_format.at(Format::Dia), 5 * 4 + 5 * 4 + 160 * 8);
  EXPECT_THROW(A.ell_part(), Error);
  EXPECT_THROW(A.csr_values(Precision::Single), Error);
  Matrix csr(context(), host);
  EXPECT_THROW(csr.dia_part(), Error);
  EXPECT_THROW(csr.dia_values(Precision::Single), Error);
}

// Tridiagonal with corners: diagonals -(n-1), -1, 0, 1, n-1, the outer two holding one entry each.
HostCsrMatrix corners(std::int32_t n) {
  std::vector<std::vector<std::pair<std::int32_t, double>>> rows(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) {
    if (i == n - 1 && n > 2) rows[i].push_back({0, -0.25});
    if (i > 0) rows[i].push_back({i - 1, -1});
    rows[i].push_back({i, 2.5});
    if (i + 1 < n) rows[i].push_back({i + 1, -1});
    if (i == 0 && n > 2) rows[i].push_back({n - 1, -0.25});
  }
  return validated_from_rows(n, n, rows);
}

TEST(DiaFormat, AwkwardMatricesRoundTrip) {
  const std::vector<std::pair<std::string, HostCsrMatrix>> cases = {
      {"0x0", validated_from_rows(0, 0, {})},
      {"0x5", validated_from_rows(0, 5, {})},
      {"3x0", validated_from_rows(3, 0, {{}, {}, {}})},
      {"3x3 empty", validated_from_rows(3, 3, {{}, {}, {}})},
      {"1x1", validated_from_rows(1, 1, {{{0, 4}}})},
      {"1x7 corner", validated_from_rows(1, 7, {{{0, 1}, {6, 2}}})},
      {"7x1 corner", validated_from_rows(7, 1, {{{0, 1}}, {}, {}, {}, {}, {}, {{0, 2}}})},
      {"corners 2", corners(2)},
      {"corners 33", corners(33)},
      {"corners 1025", corners(1025)},
      {"small", small_matrix()},
      {"poisson3d 5", poisson3d(5)},
  };
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;  // the corner cases store far more padding than entries, on purpose
  for (const auto& [name, host] : cases) {
    Matrix A(context(), host, Format::Dia, options);
    expect_same_csr(A.to_host(), host, name, context().get());
    // Through the other formats and back.
    A.convert(Format::Ell);
    A.convert(Format::Dia);
    expect_same_csr(A.to_host(), host, name + " after ELL", context().get());
  }
  Matrix A(context(), corners(33), Format::Dia, options);
  EXPECT_EQ(read<std::int32_t>(A.dia_part().offsets, 5), (std::vector<std::int32_t>{-32, -1, 0, 1, 32}));
}

// What the statistics count: every distinct diagonal up to MatrixStats::kDiagonalsCounted, -1 past it.
TEST(DiaFormat, StatisticsCountTheDiagonals) {
  EXPECT_EQ(compute_stats(poisson3d(6)).diagonals, 7);
  EXPECT_EQ(compute_stats(poisson2d(6)).diagonals, 5);
  EXPECT_EQ(compute_stats(corners(40)).diagonals, 5);
  EXPECT_EQ(compute_stats(validated_from_rows(0, 0, {})).diagonals, 0);
  EXPECT_EQ(compute_stats(validated_from_rows(2, 2, {{}, {}})).diagonals, 0);
  // A full 600 x 600 matrix: 1199 diagonals, past the count.
  std::vector<std::vector<std::pair<std::int32_t, double>>> full(600);
  for (std::int32_t i = 0; i < 600; ++i)
    for (std::int32_t j = 0; j < 600; ++j) full[i].push_back({j, 1.0});
  const MatrixStats s = compute_stats(validated_from_rows(600, 600, full));
  EXPECT_EQ(s.diagonals, -1);
  EXPECT_EQ(s.bytes_per_format.count(Format::Dia), 0u);
  // Half of it (the upper triangle): 600 diagonals, counted.
  std::vector<std::vector<std::pair<std::int32_t, double>>> upper(600);
  for (std::int32_t i = 0; i < 600; ++i)
    for (std::int32_t j = i; j < 600; ++j) upper[i].push_back({j, 1.0});
  EXPECT_EQ(compute_stats(validated_from_rows(600, 600, upper)).diagonals, 600);
  EXPECT_EQ(parse_format("DIA"), Format::Dia);
  EXPECT_EQ(to_string(Format::Dia), "dia");
}

// n = 3000: the diagonal, row 1500 full, column 2 full: 4497 diagonals.
HostCsrMatrix arrow() {
  std::vector<std::vector<std::pair<std::int32_t, double>>> rows(3000);
  for (std::int32_t i = 0; i < 3000; ++i)
    for (std::int32_t j = 0; j < 3000; ++j)
      if (i == 1500 || j == i || j == 2) rows[i].push_back({j, 1.0 + (i + j) % 7});
  return validated_from_rows(3000, 3000, rows);
}

// The message of the clkr::Error (a refusal) that `call` throws, or "(no error)".
template <class Call>
std::string refusal(const Call& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DiaFormat, RefusesManyDiagonalsAndMuchPaddingWithoutAllocating) {
  const HostCsrMatrix dense_row_and_column = arrow();
  context()->finish();
  const std::uint64_t before = context()->device_memory().live_bytes;
  // Thousands of diagonals: refused by their number, named with the limit.
  const std::string many = refusal([&] { Matrix A(context(), dense_row_and_column, Format::Dia); });
  EXPECT_NE(many.find("DIA refused for a 3000 x 3000 matrix"), std::string::npos) << many;
  EXPECT_NE(many.find("more diagonals (distinct column - row offsets) than MatrixOptions::max_dia_diagonals (256)"),
            std::string::npos)
      << many;
  EXPECT_NE(many.find("use CSR, ELL or SELL"), std::string::npos) << many;
  // Allowed that many, the padding refuses them: 4497 x 3000 slots for 8997 entries.
  MatrixOptions options;
  options.max_dia_diagonals = 5000;
  const std::string padding = refusal([&] { Matrix A(context(), dense_row_and_column, Format::Dia, options); });
  EXPECT_NE(padding.find("its 4497 diagonals would store 4497 x 3000 = 13491000 entries"), std::string::npos)
      << padding;
  EXPECT_NE(padding.find("max_ell_fill_ratio (3)"), std::string::npos) << padding;
  // 600 diagonals counted by the statistics are named exactly.
  std::vector<std::vector<std::pair<std::int32_t, double>>> upper(600);
  for (std::int32_t i = 0; i < 600; ++i)
    for (std::int32_t j = i; j < 600; ++j) upper[i].push_back({j, 1.0});
  const std::string counted = refusal([&] { Matrix A(context(), validated_from_rows(600, 600, upper), Format::Dia); });
  EXPECT_NE(counted.find("on 600 diagonals (distinct column - row offsets), more than "
                         "MatrixOptions::max_dia_diagonals (256)"),
            std::string::npos)
      << counted;
  options.max_dia_diagonals = -1;
  EXPECT_NE(
      refusal([&] { Matrix A(context(), poisson2d(4), Format::Dia, options); }).find("max_dia_diagonals must be >= 0"),
      std::string::npos);
  context()->finish();
  EXPECT_EQ(context()->device_memory().live_bytes, before) << "a refused DIA allocated device memory";
  // Converting is refused the same way, and leaves the matrix as it was.
  Matrix A(context(), dense_row_and_column, Format::Csr);
  EXPECT_THROW(A.convert(Format::Dia), Error);
  EXPECT_EQ(A.format(), Format::Csr);
  EXPECT_THROW(matrix_device_bytes(dense_row_and_column, Format::Dia, {Precision::Single}, true), Error);
}

// An explicit zero is an entry: an update can give it a value, and the pattern stays.
TEST(DiaFormat, UpdateValuesKeepsThePatternAndReachesExplicitZeros) {
  const HostCsrMatrix host = small_matrix();
  Matrix A(context(), host, Format::Dia);
  HostCsrMatrix updated = host;
  for (std::size_t k = 0; k < updated.values.size(); ++k) updated.values[k] = 0.5 + static_cast<double>(k);
  A.update_values(updated.values);
  expect_same_csr(A.to_host(), updated, "after update", context().get());
  std::vector<double> zeros(host.values.size(), 0.0);
  A.update_values(zeros);
  HostCsrMatrix zeroed = host;
  zeroed.values = zeros;
  expect_same_csr(A.to_host(), zeroed, "all zero", context().get());
}

}  // namespace
}  // namespace clkr
