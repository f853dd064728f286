// detail::scan_diagonal (kernels/precond/gershgorin.cl and its host loop): Gershgorin's bound against a
// long-double reference, 1 / diag(A) exactly (division is correctly rounded in both), and the first
// row whose diagonal is not positive and finite, at row counts around the kernel's work-group of 256,
// in every storage format but SELL (scanned on the host), on the device and the host.
#include "precond/diagonal_scan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "amg_test_support.hpp"

namespace clkr {
namespace {

// rows x rows with a diagonal in [1, 100] and a few off-diagonals (row 1 long), values of mixed sign.
HostCsrMatrix random_diagonal_heavy(std::int32_t rows, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), d(1.0, 100.0);
  HostCsrMatrix A;
  A.rows = A.cols = rows;
  for (std::int32_t i = 0; i < rows; ++i) {
    std::set<std::int32_t> columns = {i};
    const int count = i == 1 ? rows : static_cast<int>(rng() % 6);
    for (int c = 0; c < count; ++c) columns.insert(static_cast<std::int32_t>(rng() % rows));
    for (std::int32_t j : columns) {
      A.col_indices.push_back(j);
      A.values.push_back(j == i ? d(rng) : 10 * u(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// The same on a few diagonals (offsets 0, +-1, +-5 and the corners +-(rows-1)), for DIA.
HostCsrMatrix random_banded(std::int32_t rows, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), d(1.0, 100.0);
  HostCsrMatrix A;
  A.rows = A.cols = rows;
  for (std::int32_t i = 0; i < rows; ++i) {
    std::set<std::int32_t> columns;
    for (const std::int32_t offset : {-(rows - 1), -5, -1, 0, 1, 5, rows - 1})
      if (i + offset >= 0 && i + offset < rows) columns.insert(i + offset);
    for (std::int32_t j : columns) {
      A.col_indices.push_back(j);
      A.values.push_back(j == i ? d(rng) : 10 * u(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

long double reference_gershgorin(const HostCsrMatrix& A) {
  long double bound = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double sum = 0, diagonal = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += std::abs(static_cast<long double>(A.values[k]));
      if (A.col_indices[k] == i) diagonal += A.values[k];
    }
    if (diagonal != 0) bound = std::max(bound, sum / std::abs(diagonal));
  }
  return bound;
}

using ScanCase = std::tuple<Format, Location>;
class DiagonalScan : public ::testing::TestWithParam<ScanCase> {};

TEST_P(DiagonalScan, BoundInverseAndFirstBadRow) {
  const auto [format, location] = GetParam();
  auto context = test::amg_context();
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;
  options.keep_host_copy = location == Location::Host;
  for (const std::int32_t rows : {1, 3, 255, 257, 1023, 1025}) {
    HostCsrMatrix a = format == Format::Dia ? random_banded(rows, 7 + rows) : random_diagonal_heavy(rows, 7 + rows);
    {
      Matrix A(context, a, format, options);
      Vector dinv(context, static_cast<std::size_t>(rows), "dinv");
      const detail::DiagonalScan scan = detail::scan_diagonal(A, &dinv, location);
      const long double expected = reference_gershgorin(a);
      EXPECT_NEAR(scan.gershgorin, static_cast<double>(expected), 1e-14 * static_cast<double>(expected)) << rows;
      EXPECT_EQ(scan.first_bad_row, -1) << rows;
      const std::vector<double> got = dinv.to_host();
      const std::vector<double> d = A.diagonal();
      for (std::int32_t i = 0; i < rows; ++i) ASSERT_EQ(got[i], 1.0 / d[i]) << "rows " << rows << ", row " << i;
      // The single-precision copy a single-precision smoother reads is the double one rounded.
      const float* single = dinv.host_single(Access::Read);
      for (std::int32_t i = 0; i < rows; ++i) ASSERT_EQ(single[i], static_cast<float>(1.0 / d[i])) << i;
    }
    if (rows < 3) continue;
    // Bad diagonals: the first is reported, with its value.
    for (const double bad : {0.0, -2.5}) {
      HostCsrMatrix b = a;
      const std::int32_t first = rows / 2, later = rows - 1;
      for (std::int32_t row : {later, first})
        for (std::int32_t k = b.row_offsets[row]; k < b.row_offsets[row + 1]; ++k)
          if (b.col_indices[k] == row) b.values[k] = bad;
      Matrix B(context, b, format, options);
      const detail::DiagonalScan scan = detail::scan_diagonal(B, nullptr, location);
      EXPECT_EQ(scan.first_bad_row, first) << rows << " rows, diagonal " << bad;
      EXPECT_EQ(scan.bad_value, bad);
    }
  }
}

std::string scan_case_name(const ::testing::TestParamInfo<ScanCase>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Cases, DiagonalScan,
                         ::testing::Combine(::testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb,
                                                              Format::Dia),
                                            ::testing::Values(Location::Device, Location::Host)),
                         scan_case_name);

// A row without a diagonal entry is bad (its diagonal is zero), and the empty matrix has no bad row.
TEST(DiagonalScanEdges, MissingDiagonalAndEmptyMatrix) {
  auto context = test::amg_context();
  HostCsrMatrix a;
  a.rows = a.cols = 3;
  a.row_offsets = {0, 1, 2, 3};
  a.col_indices = {0, 0, 2};  // row 1 holds only column 0
  a.values = {2.0, -1.0, 4.0};
  for (Location location : {Location::Device, Location::Host}) {
    Matrix A(context, a);
    const detail::DiagonalScan scan = detail::scan_diagonal(A, nullptr, location);
    EXPECT_EQ(scan.first_bad_row, 1);
    EXPECT_EQ(scan.bad_value, 0.0);
    EXPECT_EQ(scan.gershgorin, 1.0);  // rows 0 and 2; row 1 has no diagonal to divide by
  }
  HostCsrMatrix empty;
  empty.row_offsets = {0};
  const detail::DiagonalScan none = detail::scan_diagonal(empty, nullptr);
  EXPECT_EQ(none.first_bad_row, -1);
  EXPECT_EQ(none.gershgorin, 0.0);
}

}  // namespace
}  // namespace clkr
