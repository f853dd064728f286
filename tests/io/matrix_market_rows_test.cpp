// read_matrix_market_rows and compute_stats over listed rows: a file's nonempty rows only, for the
// statistics of a file that declares far more rows than it has entries (`clkr info` on a 60-byte file
// declaring 2e9 rows). On files small enough to read whole, both ways must give the same statistics and
// the same rows; on the 2e9-row file the listed way must answer at once, allocating nothing per row.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "clkr/data/matrix.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("clkr_rows_test_" + std::to_string(getpid()) + "_" + name);
}

void expect_same_stats(const MatrixStats& a, const MatrixStats& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.nnz, b.nnz);
  EXPECT_EQ(a.min_row_length, b.min_row_length);
  EXPECT_EQ(a.max_row_length, b.max_row_length);
  EXPECT_DOUBLE_EQ(a.mean_row_length, b.mean_row_length);
  EXPECT_EQ(a.empty_rows, b.empty_rows);
  EXPECT_EQ(a.bandwidth, b.bandwidth);
  EXPECT_EQ(a.hyb_ell_width, b.hyb_ell_width);
  EXPECT_EQ(a.diagonals, b.diagonals);
  EXPECT_EQ(a.bytes_per_format, b.bytes_per_format);
}

// Rows listed by a file and the same file read whole agree row by row, and in every statistic.
void expect_listed_rows_match(const fs::path& path) {
  const HostCsrMatrix full = read_matrix_market(path.string());
  const MatrixMarketRows listed = read_matrix_market_rows(path.string());
  ASSERT_EQ(listed.rows, full.rows);
  ASSERT_EQ(listed.listed.rows, static_cast<std::int32_t>(listed.row_ids.size()));
  std::size_t next = 0;
  for (std::int32_t i = 0; i < full.rows; ++i) {
    const std::int32_t begin = full.row_offsets[i], end = full.row_offsets[i + 1];
    if (begin == end) continue;
    ASSERT_LT(next, listed.row_ids.size());
    ASSERT_EQ(listed.row_ids[next], i);
    const std::int32_t lb = listed.listed.row_offsets[next], le = listed.listed.row_offsets[next + 1];
    ASSERT_EQ(le - lb, end - begin) << "row " << i;
    for (std::int32_t k = 0; k < end - begin; ++k) {
      EXPECT_EQ(listed.listed.col_indices[lb + k], full.col_indices[begin + k]) << "row " << i;
      EXPECT_EQ(listed.listed.values[lb + k], full.values[begin + k]) << "row " << i;
    }
    ++next;
  }
  EXPECT_EQ(next, listed.row_ids.size()) << "rows listed that the full read has empty";
  EXPECT_EQ(listed.symmetric, full.symmetric);
  MatrixStats from_rows = compute_stats(listed.listed, listed.row_ids, listed.rows);
  from_rows.symmetric = listed.symmetric;
  expect_same_stats(from_rows, compute_stats(full));
}

// 9000 rows, mostly empty: a symmetric file with duplicates and a long row (past HYB's ELL width), and
// a general one whose entries sit in a few rows far apart.
std::string sparse_symmetric() {
  std::string text = "%%MatrixMarket matrix coordinate real symmetric\n9000 9000 5006\n";
  for (int i = 1; i <= 5000; ++i) text += std::to_string(i) + " " + std::to_string(i) + " " + std::to_string(i) + "\n";
  for (int j = 2; j <= 6; ++j) text += "8999 " + std::to_string(j) + " -1.5\n";  // row 8999 and its mirrors
  text += "8999 2 0.25\n";                                                       // a duplicate, summed
  return text;
}

TEST(MatrixMarketRows, ListedRowsGiveWhatTheWholeFileGives) {
  const fs::path symmetric = scratch("symmetric.mtx"), general = scratch("general.mtx"), gz = scratch("s.mtx.gz");
  std::ofstream(symmetric) << sparse_symmetric();
  std::ofstream(general) << "%%MatrixMarket matrix coordinate real general\n9000 7000 4\n"
                            "17 6999 2\n8000 1 -3\n17 3 1\n17 6999 4\n";
  gzFile file = gzopen(gz.string().c_str(), "wb9");
  const std::string text = sparse_symmetric();
  gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
  gzclose(file);
  expect_listed_rows_match(symmetric);
  expect_listed_rows_match(general);
  expect_listed_rows_match(gz);
  for (const fs::path& p : {symmetric, general, gz}) fs::remove(p);
}

TEST(MatrixMarketRows, TwoBillionDeclaredRowsWithOneEntryAnswerAtOnce) {
  const fs::path path = scratch("huge.mtx");
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n5 7 2.5\n";
  const auto start = std::chrono::steady_clock::now();
  const MatrixMarketRows file = read_matrix_market_rows(path.string());
  const MatrixStats s = compute_stats(file.listed, file.row_ids, file.rows);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::remove(path);
  EXPECT_LT(seconds, 0.5);
  EXPECT_EQ(file.row_ids, std::vector<std::int32_t>{4});
  EXPECT_EQ(s.rows, 2000000000);
  EXPECT_EQ(s.nnz, 1);
  EXPECT_EQ(s.empty_rows, 1999999999);
  EXPECT_EQ(s.min_row_length, 0);
  EXPECT_EQ(s.max_row_length, 1);
  EXPECT_EQ(s.bandwidth, 2);
  EXPECT_EQ(s.hyb_ell_width, 0);
  EXPECT_EQ(s.bytes_per_format.at(Format::Csr), 2000000001LL * 4 + 12);
  EXPECT_EQ(s.bytes_per_format.at(Format::Ell), 2000000000LL * 12);  // width 1, pitch 2e9 (a multiple of 32)
  EXPECT_EQ(s.diagonals, 1);                                         // offset 7 - 5
  // One diagonal of pitch 2e9: its offset, 2e9 / 32 words of presence bits, 2e9 doubles.
  EXPECT_EQ(s.bytes_per_format.at(Format::Dia), 4 + 2000000000LL / 32 * 4 + 2000000000LL * 8);
}

TEST(MatrixMarketRows, BadRowIdsAreRefused) {
  HostCsrMatrix listed;
  listed.rows = 2;
  listed.cols = 5;
  listed.row_offsets = {0, 1, 2};
  listed.col_indices = {0, 1};
  listed.values = {1, 1};
  EXPECT_THROW(compute_stats(listed, {3, 1}, 10), Error);   // not increasing
  EXPECT_THROW(compute_stats(listed, {1, 10}, 10), Error);  // past the rows
  EXPECT_THROW(compute_stats(listed, {1}, 10), Error);      // one id for two rows
}

}  // namespace
}  // namespace clkr
