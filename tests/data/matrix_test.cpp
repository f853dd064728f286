// Tests of clkr::Matrix: every format's device layout read back buffer by buffer, round trips through
// every format conversion, values in each precision, refusals (ELL blow-up, 32-bit and allocation
// limits), statistics and the HYB width heuristic.
#include "clkr/data/matrix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;
using test::expect_same_csr;
using test::fp64;
using test::read;

const Format kFormats[] = {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb};

std::int64_t row_length(const HostCsrMatrix& A, std::int32_t i) { return A.row_offsets[i + 1] - A.row_offsets[i]; }

std::int32_t longest_row(const HostCsrMatrix& A) {
  std::int64_t longest = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) longest = std::max(longest, row_length(A, i));
  return static_cast<std::int32_t>(longest);
}

// A random matrix: row lengths uniform in [0, max_row_length] (every 7th row empty), distinct sorted
// columns, values of both signs over 2^-20 .. 2^20 with explicit zeros among them (1 in 13), and
// optionally one long row in the middle.
HostCsrMatrix random_matrix(std::int32_t rows, std::int32_t cols, int max_row_length, unsigned seed,
                            int long_row_length = 0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<std::int32_t> all(static_cast<std::size_t>(cols));
  std::iota(all.begin(), all.end(), 0);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    int length = std::uniform_int_distribution<int>(0, std::min(max_row_length, cols))(rng);
    if (i % 7 == 3) length = 0;
    if (long_row_length > 0 && i == rows / 2) length = std::min(long_row_length, cols);
    std::sample(all.begin(), all.end(), std::back_inserter(A.col_indices), length, rng);
    for (int k = 0; k < length; ++k) {
      const bool explicit_zero = (A.values.size() % 13) == 5;
      A.values.push_back(explicit_zero ? 0.0 : std::ldexp(mantissa(rng), exponent(rng)) * (rng() % 2 ? 1 : -1));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  return A;
}

// A matrix from rows of (column, value).
HostCsrMatrix from_rows(std::int32_t cols, const std::vector<std::vector<std::pair<int, double>>>& rows) {
  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(rows.size());
  A.cols = cols;
  for (const auto& row : rows) {
    for (const auto& [c, v] : row) {
      A.col_indices.push_back(c);
      A.values.push_back(v);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  return A;
}

// Rows with given lengths (columns 0 .. length-1, value 1 + column).
HostCsrMatrix with_row_lengths(std::int32_t cols, const std::vector<int>& lengths) {
  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(lengths.size());
  A.cols = cols;
  for (int length : lengths) {
    for (int c = 0; c < length; ++c) {
      A.col_indices.push_back(c);
      A.values.push_back(1.0 + c);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  return A;
}

struct NamedMatrix {
  std::string name;
  HostCsrMatrix A;
};

const std::vector<NamedMatrix>& test_matrices() {
  static const std::vector<NamedMatrix> matrices = [] {
    std::vector<NamedMatrix> m;
    m.push_back({"mixed_1001_with_long_row", random_matrix(1001, 1001, 9, 1, 700)});
    m.push_back({"one_by_one", from_rows(1, {{{0, 2.5}}})});
    m.push_back({"one_by_one_empty", from_rows(1, {{}})});
    m.push_back({"no_entries_37", random_matrix(37, 37, 0, 2)});
    m.push_back({"wide_45x130", random_matrix(45, 130, 20, 3)});
    m.push_back({"tall_130x45", random_matrix(130, 45, 6, 4)});
    m.push_back({"zero_by_zero", HostCsrMatrix{}});
    m.push_back({"rows_of_four_64", with_row_lengths(64, std::vector<int>(64, 4))});
    m.push_back({"full_33", with_row_lengths(33, std::vector<int>(33, 33))});
    m.push_back({"symmetric_5", from_rows(5, {{{0, 4}, {1, -1}},
                                              {{0, -1}, {1, 4}, {2, -1}},
                                              {{1, -1}, {2, 4}, {3, -1}},
                                              {{2, -1}, {3, 4}, {4, -1}},
                                              {{3, -1}, {4, 4}}})});
    m.back().A.symmetric = true;
    return m;
  }();
  return matrices;
}

void expect_equal(const HostCsrMatrix& got, const HostCsrMatrix& want, const std::string& what) {
  EXPECT_EQ(got.symmetric, want.symmetric) << what;
  expect_same_csr(got, want, what, context().get());
}

// ---- the layouts the header documents, built independently of src/data -----------------------------

struct Layout {
  std::vector<std::int32_t> row_offsets, csr_cols;
  std::vector<double> csr_values;
  std::int32_t width = 0, pitch = 0;
  std::vector<std::int32_t> ell_cols;
  std::vector<double> ell_values;
};

Layout expected_layout(const HostCsrMatrix& A, Format f, std::int32_t hyb_width) {
  Layout L;
  const bool has_ell = f == Format::Ell || f == Format::Hyb;
  if (has_ell) {
    L.width = f == Format::Ell ? longest_row(A) : hyb_width;
    L.pitch = (A.rows + 31) / 32 * 32;
    L.ell_cols.assign(static_cast<std::size_t>(L.width) * L.pitch, -1);
    L.ell_values.assign(L.ell_cols.size(), 0.0);
  }
  L.row_offsets.push_back(0);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = k - A.row_offsets[i];
      if (j < L.width) {
        L.ell_cols[static_cast<std::size_t>(j) * L.pitch + i] = A.col_indices[k];
        L.ell_values[static_cast<std::size_t>(j) * L.pitch + i] = A.values[k];
      } else {
        L.csr_cols.push_back(A.col_indices[k]);
        L.csr_values.push_back(A.values[k]);
      }
    }
    // CSR4 padding: value 0 and the row's last column, up to a multiple of 4 entries.
    while (f != Format::Csr && (L.csr_cols.size() - L.row_offsets.back()) % 4 != 0) {
      L.csr_cols.push_back(L.csr_cols.back());
      L.csr_values.push_back(0.0);
    }
    L.row_offsets.push_back(static_cast<std::int32_t>(L.csr_cols.size()));
  }
  return L;
}

// The stored values of one part in every precision against `want` (padding included): double exactly,
// single as float(want), quasi-double as its split.
void expect_values(Matrix& M, bool ell, const std::vector<double>& want, const std::string& what) {
  const std::size_t n = want.size();
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double}) {
    SCOPED_TRACE(what + " " + to_string(p));
    if (p == Precision::Double && !fp64()) {
      EXPECT_THROW(ell ? M.ell_values(p) : M.csr_values(p), Error);
      continue;
    }
    const Matrix::Values v = ell ? M.ell_values(p) : M.csr_values(p);
    if (p == Precision::Double) {
      const auto got = read<double>(v.primary, n);
      for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(std::memcmp(&got[k], &want[k], 8), 0) << k;
      continue;
    }
    const auto head = read<float>(v.primary, n);
    const auto tail = p == Precision::QuasiDouble ? read<float>(v.tail, n) : std::vector<float>();
    EXPECT_EQ(v.tail() == nullptr, p == Precision::Single);
    for (std::size_t k = 0; k < n; ++k) {
      const float h = static_cast<float>(want[k]);
      ASSERT_EQ(head[k], h) << k;
      if (p == Precision::QuasiDouble) ASSERT_EQ(tail[k], static_cast<float>(want[k] - static_cast<double>(h))) << k;
    }
  }
}

// Every buffer of the current format against the documented layout.
void expect_layout(Matrix& M, const HostCsrMatrix& A, std::int32_t hyb_width) {
  const Format f = M.format();
  const Layout L = expected_layout(A, f, hyb_width);
  SCOPED_TRACE("format " + to_string(f));
  if (f != Format::Ell) {
    const Matrix::CsrPart& part = M.csr_part();
    EXPECT_EQ(part.stored, static_cast<std::int64_t>(L.csr_cols.size()));
    const auto offsets = read<std::int32_t>(part.row_offsets, static_cast<std::size_t>(A.rows) + 1);
    EXPECT_EQ(offsets, L.row_offsets);
    if (f != Format::Csr)
      for (std::int32_t o : offsets) ASSERT_EQ(o % 4, 0) << "CSR4 offsets are multiples of 4";
    EXPECT_EQ(read<std::int32_t>(part.col_indices, L.csr_cols.size()), L.csr_cols);
    expect_values(M, false, L.csr_values, "CSR part");
  } else {
    EXPECT_THROW(M.csr_part(), Error);
    EXPECT_THROW(M.csr_values(Precision::Single), Error);
  }
  if (f == Format::Ell || f == Format::Hyb) {
    const Matrix::EllPart& part = M.ell_part();
    EXPECT_EQ(part.width, L.width);
    EXPECT_EQ(part.pitch, L.pitch);
    EXPECT_EQ(part.pitch % 32, 0);
    EXPECT_EQ(read<std::int32_t>(part.col_indices, L.ell_cols.size()), L.ell_cols);
    expect_values(M, true, L.ell_values, "ELL part");
  } else {
    EXPECT_THROW(M.ell_part(), Error);
    EXPECT_THROW(M.ell_values(Precision::Single), Error);
  }
}

MatrixOptions ell_allowed() {
  MatrixOptions o;
  o.max_ell_fill_ratio = 1e9;  // these tests want ELL even for the long-row matrix
  return o;
}

// ---- round trips and layouts, per matrix and starting format ---------------------------------------

class MatrixFormats : public ::testing::TestWithParam<std::tuple<std::size_t, Format>> {};

TEST_P(MatrixFormats, LayoutAndRoundTripThroughEveryFormat) {
  const auto& [index, start] = GetParam();
  const HostCsrMatrix& A = test_matrices()[index].A;
  Matrix M(context(), A, start, ell_allowed());
  EXPECT_EQ(M.format(), start);
  EXPECT_EQ(M.rows(), A.rows);
  EXPECT_EQ(M.cols(), A.cols);
  EXPECT_EQ(M.nnz(), A.nnz());
  EXPECT_EQ(M.symmetric(), A.symmetric);
  expect_equal(M.to_host(), A, "constructed as " + to_string(start));
  expect_layout(M, A, choose_hyb_width(A));
  // Through every other format and back to the start.
  for (Format f : kFormats) {
    if (f == start) continue;
    M.convert(f);
    EXPECT_EQ(M.format(), f);
    expect_equal(M.to_host(), A, to_string(start) + " -> " + to_string(f));
    expect_layout(M, A, choose_hyb_width(A));
  }
  M.convert(start);
  expect_equal(M.to_host(), A, "back to " + to_string(start));
}

TEST_P(MatrixFormats, HybWithAForcedWidthSplitsRowsBetweenTheParts) {
  const auto& [index, start] = GetParam();
  const HostCsrMatrix& A = test_matrices()[index].A;
  MatrixOptions options = ell_allowed();
  options.hyb_ell_width = 3;
  Matrix M(context(), A, start, options);
  M.convert(Format::Hyb);
  const std::int32_t width = std::min(3, longest_row(A));  // capped by the longest row
  expect_layout(M, A, width);
  expect_equal(M.to_host(), A, "HYB width 3");
  // Every row's ELL entries followed by its overflow entries (padding dropped) is the full row.
  const HostCsrMatrix back = M.to_host();
  for (std::int32_t i = 0; i < A.rows; ++i) EXPECT_EQ(row_length(back, i), row_length(A, i)) << "row " << i;
}

INSTANTIATE_TEST_SUITE_P(Matrices, MatrixFormats,
                         ::testing::Combine(::testing::Range<std::size_t>(0, test_matrices().size()),
                                            ::testing::ValuesIn(kFormats)),
                         [](const ::testing::TestParamInfo<std::tuple<std::size_t, Format>>& info) {
                           return test_matrices()[std::get<0>(info.param)].name + "_from_" +
                                  to_string(std::get<1>(info.param));
                         });

// ---- refusals --------------------------------------------------------------------------------------

TEST(Matrix, EllIsRefusedWhenPaddingBlowsUp) {
  const HostCsrMatrix A = random_matrix(1001, 1001, 9, 1, 700);
  try {
    Matrix M(context(), A, Format::Ell);
    ADD_FAILURE() << "ELL accepted for a matrix with one 700-entry row";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ELL refused"), std::string::npos) << message;
    EXPECT_NE(message.find("700 x 1001"), std::string::npos) << message;
    EXPECT_NE(message.find("use HYB"), std::string::npos) << message;
  }
  // A refused conversion leaves the matrix as it was.
  Matrix M(context(), A, Format::Csr);
  EXPECT_THROW(M.convert(Format::Ell), Error);
  EXPECT_EQ(M.format(), Format::Csr);
  expect_equal(M.to_host(), A, "after the refused conversion");
  M.convert(Format::Hyb);
  expect_equal(M.to_host(), A, "HYB instead");
}

TEST(Matrix, PaddedSizePastInt32IsRefused) {
  // 100000 rows and one full row: ELL (or HYB forced that wide) would pad to 10^10 entries.
  std::vector<int> lengths(100000, 1);
  lengths[500] = 100000;
  const HostCsrMatrix A = with_row_lengths(100000, lengths);
  MatrixOptions options = ell_allowed();
  options.max_ell_fill_ratio = 1e12;
  options.hyb_ell_width = 100000;
  for (Format f : {Format::Ell, Format::Hyb}) {
    try {
      Matrix M(context(), A, f, options);
      ADD_FAILURE() << to_string(f) << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ELL padded size (width 100000 x pitch 100000"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("32-bit"), std::string::npos) << e.what();
    }
  }
}

TEST(Matrix, BufferPastTheMaximumAllocationIsRefusedByName) {
  // ELL of width 3000 over 100000 rows: 3e8 entries, within 32-bit indices, 2.4 GB of double values.
  std::vector<int> lengths(100000, 1);
  lengths[7] = 3000;
  const HostCsrMatrix A = with_row_lengths(3000, lengths);
  const std::int64_t value_bytes = std::int64_t{3000} * 100000 * (fp64() ? 8 : 4);
  if (static_cast<std::uint64_t>(value_bytes) <= context()->info().max_allocation)
    GTEST_SKIP() << "the device allows allocations of " << context()->info().max_allocation << " bytes";
  MatrixOptions options = ell_allowed();
  options.max_ell_fill_ratio = 1e12;
  try {
    Matrix M(context(), A, Format::Ell, options);
    ADD_FAILURE() << "ELL accepted";
  } catch (const Error& e) {
    // The first array past the limit is named: the column indices (4 bytes an entry) where the device
    // allows less than 1.2 GB (PoCL on some hosts allows 1 GiB), else the values.
    const std::int64_t index_bytes = std::int64_t{3000} * 100000 * 4;
    const std::string expected = static_cast<std::uint64_t>(index_bytes) > context()->info().max_allocation
                                     ? "ELL column indices need " + std::to_string(index_bytes) + " bytes"
                                     : "ELL values need " + std::to_string(value_bytes) + " bytes";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than the largest allocation"), std::string::npos) << e.what();
  }
}

TEST(Matrix, RefusesBadInput) {
  HostCsrMatrix unsorted = from_rows(3, {{{2, 1.0}, {1, 2.0}}});
  EXPECT_THROW(Matrix(context(), unsorted), Error);
  EXPECT_THROW(compute_stats(unsorted), Error);
  EXPECT_THROW(choose_hyb_width(unsorted), Error);
  EXPECT_THROW(Matrix(nullptr, from_rows(1, {{{0, 1.0}}})), Error);
  MatrixOptions negative;
  negative.hyb_ell_width = -1;
  EXPECT_THROW(Matrix(context(), from_rows(1, {{{0, 1.0}}}), Format::Hyb, negative), Error);
}

// ---- statistics and the HYB width ------------------------------------------------------------------

TEST(Matrix, StatsOfAHandMadeMatrix) {
  // 5 x 6: row 0 {0, 3}, row 1 empty, row 2 {0, 1, 2, 4, 5}, row 3 {3}, row 4 {0}.
  const HostCsrMatrix A =
      from_rows(6, {{{0, 1}, {3, 2}}, {}, {{0, 3}, {1, 4}, {2, 5}, {4, 6}, {5, 7}}, {{3, 8}}, {{0, 9}}});
  const MatrixStats s = compute_stats(A);
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.cols, 6);
  EXPECT_EQ(s.nnz, 9);
  EXPECT_EQ(s.min_row_length, 0);
  EXPECT_EQ(s.max_row_length, 5);
  EXPECT_DOUBLE_EQ(s.mean_row_length, 1.8);
  EXPECT_EQ(s.empty_rows, 1);
  EXPECT_EQ(s.bandwidth, 4);  // (4, 0)
  EXPECT_FALSE(s.symmetric);
  EXPECT_EQ(s.hyb_ell_width, 0);  // fewer than 4096 rows
  // CSR: 6 offsets + 9 x (index + double). CSR4: rows padded to 4, 0, 8, 4, 4 = 20 entries.
  // ELL: width 5, pitch 32. HYB: width 0, so its CSR4 overflow part only.
  EXPECT_EQ(s.bytes_per_format.at(Format::Csr), 6 * 4 + 9 * 12);
  EXPECT_EQ(s.bytes_per_format.at(Format::Csr4), 6 * 4 + 20 * 12);
  EXPECT_EQ(s.bytes_per_format.at(Format::Ell), 5 * 32 * 12);
  EXPECT_EQ(s.bytes_per_format.at(Format::Hyb), 6 * 4 + 20 * 12);
  Matrix M(context(), A);
  EXPECT_EQ(M.stats().bandwidth, 4);
  EXPECT_EQ(M.stats().bytes_per_format, s.bytes_per_format);

  const MatrixStats empty = compute_stats(HostCsrMatrix{});
  EXPECT_EQ(empty.min_row_length, 0);
  EXPECT_EQ(empty.mean_row_length, 0.0);
  EXPECT_EQ(empty.bytes_per_format.at(Format::Csr), 4);
}

// Without format statistics (the AMG's own matrices): the row statistics as before, no bytes per format
// and no diagonals counted, and every format still built and multiplied from the pattern itself.
TEST(Matrix, WithoutFormatStatisticsOnlyTheRowStatisticsAreKept) {
  const HostCsrMatrix A = poisson2d(9);
  MatrixOptions options;
  options.format_statistics = false;
  Matrix lean(context(), A, Format::Csr, options);
  const MatrixStats full = compute_stats(A), s = lean.stats();
  EXPECT_EQ(s.nnz, full.nnz);
  EXPECT_EQ(s.min_row_length, full.min_row_length);
  EXPECT_EQ(s.max_row_length, full.max_row_length);
  EXPECT_DOUBLE_EQ(s.mean_row_length, full.mean_row_length);
  EXPECT_EQ(s.bandwidth, full.bandwidth);
  EXPECT_EQ(s.hyb_ell_width, full.hyb_ell_width);
  EXPECT_TRUE(s.bytes_per_format.empty());
  EXPECT_EQ(s.diagonals, -1);
  EXPECT_EQ(full.diagonals, 5);
  for (Format f : {Format::Dia, Format::Hyb, Format::Csr}) {
    SCOPED_TRACE(to_string(f));
    lean.convert(f);
    const HostCsrMatrix back = lean.to_host();
    EXPECT_EQ(back.col_indices, A.col_indices);
    EXPECT_EQ(back.values, A.values);
  }
}

TEST(Matrix, HybWidthFromTheRowLengthHistogram) {
  // 12000 rows: needs max(4096, 4000) = 4096 rows of length >= W. 6000 rows have >= 5, 2000 have >= 6.
  std::vector<int> lengths;
  lengths.insert(lengths.end(), 6000, 3);
  lengths.insert(lengths.end(), 4000, 5);
  lengths.insert(lengths.end(), 2000, 8);
  std::shuffle(lengths.begin(), lengths.end(), std::mt19937(5));
  const HostCsrMatrix A = with_row_lengths(8, lengths);
  EXPECT_EQ(choose_hyb_width(A), 5);
  EXPECT_EQ(compute_stats(A).hyb_ell_width, 5);
  Matrix M(context(), A, Format::Hyb);
  EXPECT_EQ(M.ell_part().width, 5);
  EXPECT_EQ(M.csr_part().stored, 2000 * 4);  // 3 overflow entries per long row, padded to 4
  expect_equal(M.to_host(), A, "HYB from the heuristic");

  // 30000 rows: needs 10000. 15000 rows have >= 6 entries, 6000 have >= 7.
  lengths.assign(15000, 2);
  lengths.insert(lengths.end(), 9000, 6);
  lengths.insert(lengths.end(), 6000, 10);
  EXPECT_EQ(choose_hyb_width(with_row_lengths(10, lengths)), 6);
  // Uniform rows: the full width. Fewer than 4096 rows: 0.
  EXPECT_EQ(choose_hyb_width(with_row_lengths(7, std::vector<int>(5000, 7))), 7);
  EXPECT_EQ(choose_hyb_width(with_row_lengths(7, std::vector<int>(4095, 7))), 0);
  EXPECT_EQ(choose_hyb_width(HostCsrMatrix{}), 0);
}

// ---- host copies, diagonal, kept formats, move -----------------------------------------------------

TEST(Matrix, HostCsrIsKeptAndDiagonalFound) {
  const HostCsrMatrix& A = test_matrices()[0].A;
  Matrix M(context(), A, Format::Csr4);
  const HostCsrMatrix& host = M.host_csr();
  expect_equal(host, A, "host_csr");
  EXPECT_EQ(&M.host_csr(), &host);
  const std::vector<double> d = M.diagonal();
  ASSERT_EQ(d.size(), static_cast<std::size_t>(A.rows));
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double want = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) want = A.values[k];
    EXPECT_EQ(d[i], want) << i;
  }
  // Rectangular: one entry per row, zero past the last column.
  const HostCsrMatrix tall = from_rows(2, {{{0, 5.0}}, {{0, 1.0}, {1, 6.0}}, {{1, 7.0}}});
  EXPECT_EQ(Matrix(context(), tall, Format::Ell).diagonal(), (std::vector<double>{5.0, 6.0, 0.0}));
}

TEST(Matrix, KeepPreviousFormatKeepsItsBuffers) {
  const HostCsrMatrix& A = test_matrices()[4].A;
  Matrix M(context(), A, Format::Csr);
  const cl_mem offsets = M.csr_part().row_offsets();
  const cl_mem single = M.csr_values(Precision::Single).primary();
  EXPECT_EQ(M.csr_values(Precision::Single).primary(), single);  // made once
  M.convert(Format::Ell, true);
  expect_equal(M.to_host(), A, "ELL");
  M.convert(Format::Csr);
  EXPECT_EQ(M.csr_part().row_offsets(), offsets);
  EXPECT_EQ(M.csr_values(Precision::Single).primary(), single);

  MatrixOptions keep;
  keep.keep_previous_format = true;
  Matrix K(context(), A, Format::Hyb, keep);
  const cl_mem hyb_cols = K.ell_part().col_indices();
  K.convert(Format::Csr4);
  K.convert(Format::Hyb);
  EXPECT_EQ(K.ell_part().col_indices(), hyb_cols);
  expect_equal(K.to_host(), A, "kept HYB");
}

TEST(Matrix, MoveKeepsTheMatrix) {
  const HostCsrMatrix& A = test_matrices()[5].A;
  Matrix M(context(), A, Format::Hyb);
  Matrix N(std::move(M));
  expect_equal(N.to_host(), A, "moved");
  Matrix P(context(), test_matrices()[1].A);
  P = std::move(N);
  EXPECT_EQ(P.format(), Format::Hyb);
  expect_equal(P.to_host(), A, "move-assigned");
  EXPECT_THROW(M.rows(), Error);  // NOLINT(bugprone-use-after-move): a moved-from Matrix refuses clearly
}

}  // namespace
}  // namespace clkr
