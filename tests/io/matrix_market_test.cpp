// Tests of the Matrix Market reader and writer: every malformed-input diagnostic (message and line),
// the supported variants, round trips, gzip, the bundled SuiteSparse matrices and parsing speed.
#include "clkr/io/matrix_market.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/runtime/error.hpp"

namespace fs = std::filesystem;
using clkr::HostCsrMatrix;

namespace {

// A scratch directory per test binary run, so that parallel ctest jobs do not share files; removed
// at exit.
fs::path scratch_dir() {
  static const struct Scratch {
    fs::path path = fs::temp_directory_path() /
                    ("clkr_mm_test_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    Scratch() { fs::create_directories(path); }
    ~Scratch() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } scratch;
  return scratch.path;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The matrix as a map (row, col) -> value, to compare against hand-written expectations.
std::map<std::pair<int, int>, double> entries_of(const HostCsrMatrix& A) {
  std::map<std::pair<int, int>, double> m;
  for (int r = 0; r < A.rows; ++r)
    for (int k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) m[{r, A.col_indices[k]}] = A.values[k];
  return m;
}

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kSymmetric = "%%MatrixMarket matrix coordinate real symmetric\n";

struct MalformedCase {
  const char* label;
  std::string text;
  std::size_t line;
  const char* message;  // a substring the error must contain
};

const std::vector<MalformedCase>& malformed_cases() {
  static const std::vector<MalformedCase> cases = {
      {"empty file", "", 1, "empty file"},
      {"no banner", "3 3 1\n1 1 1\n", 1, "missing Matrix Market banner"},
      {"banner not first", "% comment\n" + kGeneral + "1 1 1\n1 1 1\n", 1, "missing Matrix Market banner"},
      {"banner too short", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1,
       "malformed banner: too few words"},
      {"banner extra word", "%%MatrixMarket matrix coordinate real general extra\n", 1, "extra word 'extra'"},
      {"vector object", "%%MatrixMarket vector coordinate real general\n", 1, "unsupported object 'vector'"},
      {"bad format", "%%MatrixMarket matrix sparse real general\n", 1, "unsupported format 'sparse'"},
      {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
       "complex matrices are not supported"},
      {"bad field", "%%MatrixMarket matrix coordinate quaternion general\n", 1, "unsupported field 'quaternion'"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n", 1, "unsupported symmetry 'hermitian'"},
      {"bad symmetry", "%%MatrixMarket matrix coordinate real lower\n", 1, "unsupported symmetry 'lower'"},
      {"pattern array", "%%MatrixMarket matrix array pattern general\n2 2\n", 1,
       "pattern matrix cannot be in array format"},
      {"symmetric array", "%%MatrixMarket matrix array real symmetric\n2 2\n", 1, "only with 'general' symmetry"},
      {"size line missing", kGeneral + "% only a comment\n\n", 4, "size line missing"},
      {"size line short", kGeneral + "3 3\n", 2, "malformed size line: expected 'rows cols entries', found 2"},
      {"size line word", kGeneral + "3 x 1\n", 2, "cols 'x' is not an integer"},
      {"size line extra", kGeneral + "3 3 1 7\n1 1 1\n", 2, "malformed size line: extra token '7'"},
      {"negative size", kGeneral + "-3 3 1\n", 2, "negative size on the size line: rows = -3"},
      {"huge size", kGeneral + "99999999999999999999 3 1\n", 2, "rows '99999999999999999999' is out of range"},
      {"rows over int32", kGeneral + "3000000000 2 1\n", 2, "3000000000 rows is more than the int32 limit"},
      // Entries past 2^31 are read (64-bit row offsets): this file only lacks them.
      {"entries past int32", kGeneral + "5 5 2200000000\n", 3, "truncated: expected 2200000000 entries, found 0"},
      {"array over int32", "%%MatrixMarket matrix array real general\n100000 100000\n", 2,
       "10000000000 array values is more than the int32 limit"},
      {"symmetric expansion past int32", kSymmetric + "50000 50000 1100000000\n", 3,
       "truncated: expected 1100000000 entries, found 0"},
      {"symmetric not square", kSymmetric + "3 4 1\n1 1 1\n", 2,
       "symmetric matrix must be square, the size line says 3 x 4"},
      {"truncated", kGeneral + "3 3 3\n1 1 1\n2 2 2\n", 5, "truncated: expected 3 entries, found 2"},
      {"truncated after comment", kGeneral + "3 3 2\n1 1 1\n% trailing comment\n", 5,
       "truncated: expected 2 entries, found 1"},
      {"too many entries", kGeneral + "3 3 1\n1 1 1\n2 2 2\n", 4, "too many entries: the size line declares 1"},
      {"row index zero", kGeneral + "3 3 1\n0 1 1\n", 3,
       "row index 0 out of range [1, 3] (Matrix Market indices are 1-based)"},
      {"column index too big", kGeneral + "3 4 1\n1 5 1\n", 3, "column index 5 out of range [1, 4]"},
      {"row index too big", kGeneral + "3 4 1\n4 1 1\n", 3, "row index 4 out of range [1, 3]"},
      {"negative index", kGeneral + "3 3 1\n1 -2 1\n", 3, "column index -2 out of range [1, 3]"},
      {"index beyond int64", kGeneral + "3 3 1\n1 99999999999999999999 1\n", 3,
       "column index '99999999999999999999' out of range"},
      {"non-numeric row", kGeneral + "3 3 1\nx 1 1\n", 3, "non-numeric row index 'x'"},
      {"fractional column", kGeneral + "3 3 1\n1 1.5 1\n", 3, "non-numeric column index '1.5'"},
      {"non-numeric value", kGeneral + "3 3 1\n1 1 abc\n", 3, "non-numeric value 'abc'"},
      {"fortran exponent", kGeneral + "3 3 1\n1 1 1.0D+00\n", 3, "non-numeric value '1.0D+00'"},
      {"missing value", kGeneral + "3 3 1\n1 1\n", 3, "missing value: expected 'row col value'"},
      {"missing column", kGeneral + "3 3 1\n1\n", 3, "missing column index"},
      {"extra token", kGeneral + "3 3 1\n1 1 1 9\n", 3, "extra token '9' after the entry"},
      {"pattern with value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
       "extra token '1' after the entry, expected 'row col'"},
      {"nan value", kGeneral + "3 3 2\n1 1 1\n2 2 nan\n", 4, "NaN value 'nan'"},
      {"inf value", kGeneral + "3 3 1\n1 1 -inf\n", 3, "infinite value '-inf'"},
      {"overflowing value", kGeneral + "3 3 1\n1 1 1e400\n", 3, "value '1e400' overflows double"},
      {"real in integer file", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 2.5\n", 3,
       "non-numeric value '2.5': expected an integer"},
      {"above diagonal", kSymmetric + "3 3 2\n1 1 1\n1 2 5\n", 4, "entry (1, 2) is above the diagonal"},
      {"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 5\n", 4,
       "diagonal entry (2, 2) in a skew-symmetric file"},
      {"array truncated", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 6,
       "truncated: expected 4 entries, found 3"},
      {"array too many", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", 5, "too many values"},
      {"array two per line", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", 3,
       "an array file has one value per line"},
      {"array bad value", "%%MatrixMarket matrix array real general\n2 1\n1\nz\n", 4, "non-numeric value 'z'"},
      {"line counts comments and blanks", kGeneral + "% c\n\n3 3 2\n% c\n1 1 1\n\n1 9 1\n", 8,
       "column index 9 out of range"},
      {"crlf line count", "%%MatrixMarket matrix coordinate real general\r\n3 3 1\r\n1 1 q\r\n", 3,
       "non-numeric value 'q'"},
      {"binary junk", kGeneral + std::string("3 3 1\n1 1 \x01\x02\x00\xff", 14) + "\n", 3, "non-numeric value"},
  };
  return cases;
}

TEST(MatrixMarketMalformed, EachInputGivesItsMessageAndLine) {
  ASSERT_GE(malformed_cases().size(), 20u);
  for (const MalformedCase& c : malformed_cases()) {
    SCOPED_TRACE(c.label);
    try {
      clkr::parse_matrix_market(c.text, "case.mtx");
      ADD_FAILURE() << "no error for: " << c.label;
    } catch (const clkr::ParseError& e) {
      EXPECT_EQ(e.file(), "case.mtx");
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("case.mtx:" + std::to_string(c.line) + ": ", 0), 0u) << e.what();
    }
  }
}

TEST(MatrixMarketMalformed, VectorReaderWantsOneColumn) {
  try {
    clkr::parse_matrix_market_array("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "v.mtx");
    ADD_FAILURE() << "a 2-column array was accepted as a vector";
  } catch (const clkr::ParseError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_NE(std::string(e.what()).find("expected a vector (one column)"), std::string::npos) << e.what();
  }
}

TEST(MatrixMarketMalformed, MaxRowsOptionRefusesHugeDeclarations) {
  clkr::MatrixMarketOptions options;
  options.max_rows = 1000;
  EXPECT_NO_THROW(clkr::parse_matrix_market(kGeneral + "1000 1 0\n", "ok.mtx", options));
  try {
    clkr::parse_matrix_market(kGeneral + "2000000000 1 0\n", "big.mtx", options);
    ADD_FAILURE() << "max_rows was ignored";
  } catch (const clkr::ParseError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_NE(std::string(e.what()).find("more than MatrixMarketOptions::max_rows = 1000"), std::string::npos);
  }
}

TEST(MatrixMarketRead, FileNotFoundNamesThePath) {
  const std::string path = (scratch_dir() / "no_such_matrix.mtx").string();
  try {
    clkr::read_matrix_market(path);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open matrix file '" + path + "'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(clkr::read_matrix_market_array(path), clkr::Error);
  try {
    clkr::read_matrix_market(scratch_dir().string());  // a directory opens but cannot be read
    ADD_FAILURE() << "no error for a directory";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read matrix file '" + scratch_dir().string() + "'"), std::string::npos)
        << e.what();
  }
}

TEST(MatrixMarketRead, GeneralSortsRowsAndKeepsExplicitZeros) {
  const std::string text = kGeneral +
                           "% a comment\n"
                           "\n"
                           "3 4 5\n"
                           "3 4 -2.5\n"
                           "\t1 3   +7 \r\n"
                           "% comment between entries\n"
                           "1 1 1e-3\n"
                           "2 2 0\n"
                           "1 2 .5\n";
  const HostCsrMatrix A = clkr::parse_matrix_market(text, "g.mtx");
  EXPECT_EQ(A.rows, 3);
  EXPECT_EQ(A.cols, 4);
  EXPECT_FALSE(A.symmetric);
  EXPECT_EQ(A.row_offsets, (std::vector<std::int64_t>{0, 3, 4, 5}));
  EXPECT_EQ(A.col_indices, (std::vector<std::int32_t>{0, 1, 2, 1, 3}));
  EXPECT_EQ(A.values, (std::vector<double>{1e-3, 0.5, 7.0, 0.0, -2.5}));
  EXPECT_NO_THROW(A.validate());
}

TEST(MatrixMarketRead, DuplicatesAreSummedInFileOrder) {
  const HostCsrMatrix A =
      clkr::parse_matrix_market(kGeneral + "2 2 5\n2 1 1\n1 2 1\n2 1 2.5\n1 2 -1\n2 1 0.25\n", "d.mtx");
  EXPECT_EQ(A.nnz(), 2);
  EXPECT_EQ(entries_of(A), (std::map<std::pair<int, int>, double>{{{0, 1}, 0.0}, {{1, 0}, 3.75}}));
  EXPECT_NO_THROW(A.validate());
}

TEST(MatrixMarketRead, PatternValuesAreOne) {
  const HostCsrMatrix A =
      clkr::parse_matrix_market("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n", "p.mtx");
  EXPECT_TRUE(A.symmetric);
  EXPECT_EQ(entries_of(A), (std::map<std::pair<int, int>, double>{
                               {{0, 0}, 1.0}, {{0, 2}, 1.0}, {{1, 2}, 1.0}, {{2, 0}, 1.0}, {{2, 1}, 1.0}}));
}

TEST(MatrixMarketRead, SymmetricIsExpanded) {
  const HostCsrMatrix A = clkr::parse_matrix_market(kSymmetric + "3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 6\n", "s.mtx");
  EXPECT_TRUE(A.symmetric);
  EXPECT_EQ(A.nnz(), 6);
  EXPECT_EQ(entries_of(A), (std::map<std::pair<int, int>, double>{
                               {{0, 0}, 4}, {{0, 1}, -1}, {{1, 0}, -1}, {{1, 2}, -2}, {{2, 1}, -2}, {{2, 2}, 6}}));
  EXPECT_NO_THROW(A.validate());
}

TEST(MatrixMarketRead, SkewSymmetricIsExpandedWithNegatedMirror) {
  const HostCsrMatrix A = clkr::parse_matrix_market(
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 1 -7\n", "k.mtx");
  EXPECT_FALSE(A.symmetric);  // skew-symmetric is not symmetric
  EXPECT_EQ(entries_of(A),
            (std::map<std::pair<int, int>, double>{{{0, 1}, -5}, {{0, 2}, 7}, {{1, 0}, 5}, {{2, 0}, -7}}));
}

TEST(MatrixMarketRead, ArrayIsColumnMajorAndKeepsZeros) {
  const HostCsrMatrix A =
      clkr::parse_matrix_market("%%MatrixMarket matrix array integer general\n% c\n2 3\n1\n2\n3\n0\n5\n6\n", "a.mtx");
  EXPECT_EQ(A.rows, 2);
  EXPECT_EQ(A.cols, 3);
  EXPECT_EQ(A.row_offsets, (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_EQ(A.col_indices, (std::vector<std::int32_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(A.values, (std::vector<double>{1, 3, 5, 2, 0, 6}));
}

TEST(MatrixMarketRead, EmptyAndZeroSizedMatrices) {
  const HostCsrMatrix A = clkr::parse_matrix_market(kGeneral + "4 2 0\n", "e.mtx");
  EXPECT_EQ(A.rows, 4);
  EXPECT_EQ(A.nnz(), 0);
  EXPECT_EQ(A.row_offsets, (std::vector<std::int64_t>(5, 0)));
  const HostCsrMatrix Z = clkr::parse_matrix_market("%%MatrixMarket matrix array real general\n0 0\n", "z.mtx");
  EXPECT_EQ(Z.rows, 0);
  EXPECT_NO_THROW(Z.validate());
}

TEST(MatrixMarketRead, NonFiniteOnlyWhenAllowed) {
  clkr::MatrixMarketOptions options;
  options.allow_non_finite = true;
  const HostCsrMatrix A =
      clkr::parse_matrix_market(kGeneral + "3 1 3\n1 1 nan\n2 1 -inf\n3 1 1e999\n", "n.mtx", options);
  EXPECT_TRUE(std::isnan(A.values[0]));
  EXPECT_EQ(A.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(A.values[2], std::numeric_limits<double>::infinity());
  EXPECT_THROW(A.validate(), clkr::Error);  // a HostCsrMatrix proper holds finite values only
}

TEST(MatrixMarketRead, TinyValuesUnderflowToZeroOrSubnormal) {
  const HostCsrMatrix A =
      clkr::parse_matrix_market(kGeneral + "3 1 3\n1 1 1e-400\n2 1 -0.00001e-320\n3 1 4.9e-324\n", "u.mtx");
  EXPECT_EQ(A.values[0], 0.0);
  EXPECT_EQ(A.values[1], 0.0);
  EXPECT_TRUE(std::signbit(A.values[1]));
  EXPECT_EQ(A.values[2], std::numeric_limits<double>::denorm_min());
}

TEST(MatrixMarketRead, VectorFromArrayAndFromCoordinate) {
  EXPECT_EQ(clkr::parse_matrix_market_array("%%MatrixMarket matrix array real general\n3 1\n1.5\n-2\n0\n", "b.mtx"),
            (std::vector<double>{1.5, -2, 0}));
  EXPECT_EQ(clkr::parse_matrix_market_array(kGeneral + "4 1 3\n4 1 2\n2 1 1\n4 1 0.5\n", "b.mtx"),
            (std::vector<double>{0, 1, 0, 2.5}));
}

// Values that a fixed precision below 17 digits, or a careless parser, would not bring back exactly.
HostCsrMatrix awkward_matrix() {
  HostCsrMatrix A;
  A.rows = 3;
  A.cols = 5;
  A.row_offsets = {0, 3, 3, 6};
  A.col_indices = {0, 2, 4, 1, 3, 4};
  A.values = {0.1,           1.0 / 3.0,
              -1e-300,       std::numeric_limits<double>::denorm_min(),
              6.02214076e23, -std::numeric_limits<double>::max()};
  return A;
}

TEST(MatrixMarketWrite, GeneralRoundTripIsExact) {
  const HostCsrMatrix A = awkward_matrix();
  const fs::path path = scratch_dir() / "general.mtx";
  clkr::write_matrix_market(path.string(), A);
  EXPECT_EQ(read_text(path).rfind(kGeneral + "3 5 6\n", 0), 0u);
  const HostCsrMatrix B = clkr::read_matrix_market(path.string());
  clkr::test::expect_same_csr(A, B, "round trip");
  EXPECT_FALSE(B.symmetric);
}

TEST(MatrixMarketWrite, SymmetricRoundTripStoresTheLowerTriangle) {
  HostCsrMatrix A;
  A.rows = A.cols = 3;
  A.row_offsets = {0, 2, 5, 7};
  A.col_indices = {0, 1, 0, 1, 2, 1, 2};
  A.values = {2.0, -0.7, -0.7, 3.0, 1e-5, 1e-5, 0.0};
  A.symmetric = true;
  const fs::path path = scratch_dir() / "symmetric.mtx";
  clkr::write_matrix_market(path.string(), A, /*as_symmetric=*/true);
  EXPECT_EQ(read_text(path), kSymmetric + "3 3 5\n1 1 2\n2 1 -0.7\n2 2 3\n3 2 1e-05\n3 3 0\n");
  const HostCsrMatrix B = clkr::read_matrix_market(path.string());
  clkr::test::expect_same_csr(A, B, "round trip");
  EXPECT_TRUE(B.symmetric);
}

TEST(MatrixMarketWrite, AsSymmetricRefusesANonSymmetricMatrix) {
  const fs::path path = scratch_dir() / "refused.mtx";
  EXPECT_THROW(clkr::write_matrix_market(path.string(), awkward_matrix(), true), clkr::Error);  // not square
  HostCsrMatrix A;
  A.rows = A.cols = 2;
  A.row_offsets = {0, 2, 3};
  A.col_indices = {0, 1, 1};
  A.values = {1, 2, 3};  // A(0,1) = 2 has no A(1,0)
  try {
    clkr::write_matrix_market(path.string(), A, true);
    ADD_FAILURE() << "a non-symmetric matrix was written as symmetric";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not symmetric at (0, 1)"), std::string::npos) << e.what();
  }
}

TEST(MatrixMarketWrite, ArrayRoundTrip) {
  const std::vector<double> v = {0.1, -2.0, 1e-310, 12345678901234567.0, 0.0};
  const fs::path path = scratch_dir() / "vector.mtx";
  clkr::write_matrix_market_array(path.string(), v);
  EXPECT_EQ(read_text(path).rfind("%%MatrixMarket matrix array real general\n5 1\n", 0), 0u);
  EXPECT_EQ(clkr::read_matrix_market_array(path.string()), v);
}

TEST(MatrixMarketWrite, UnwritablePathNamesThePath) {
  const std::string path = (scratch_dir() / "no_dir" / "x.mtx").string();
  try {
    clkr::write_matrix_market_array(path, {1.0});
    ADD_FAILURE() << "no error";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// Compresses `text` into a gzip file with zlib's own writer.
void write_gzip(const fs::path& path, const std::string& text) {
  gzFile gz = gzopen(path.string().c_str(), "wb9");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
}

const std::string kSmall = kSymmetric + "% gz test\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 6\n";

TEST(MatrixMarketGzip, ReadsGzipByMagicBytes) {
  const HostCsrMatrix expected = clkr::parse_matrix_market(kSmall, "plain");
  const fs::path gz = scratch_dir() / "small.mtx.gz";
  write_gzip(gz, kSmall);
  clkr::test::expect_same_csr(clkr::read_matrix_market(gz.string()), expected, "gzip");
  // Detection is by content: the extension does not matter, either way round.
  const fs::path disguised = scratch_dir() / "disguised.mtx";
  fs::copy_file(gz, disguised, fs::copy_options::overwrite_existing);
  clkr::test::expect_same_csr(clkr::read_matrix_market(disguised.string()), expected, "gzip under another name");
  const fs::path plain_gz = scratch_dir() / "plain.mtx.gz";
  write_text(plain_gz, kSmall);
  clkr::test::expect_same_csr(clkr::read_matrix_market(plain_gz.string()), expected, "plain text named .gz");
}

TEST(MatrixMarketGzip, ConcatenatedMembersAndLargeOutput) {
  // A body bigger than the initial output guess (4x the compressed size) makes the inflater grow.
  std::string body;
  const int n = 200000;
  for (int i = 1; i <= n; ++i) body += std::to_string(i) + " 1 1\n";
  const std::string head = kGeneral + std::to_string(n) + " 1 " + std::to_string(n) + "\n";
  const fs::path a = scratch_dir() / "a.gz", b = scratch_dir() / "b.gz", ab = scratch_dir() / "ab.mtx.gz";
  write_gzip(a, head);
  write_gzip(b, body);
  write_text(ab, read_text(a) + read_text(b));
  const HostCsrMatrix A = clkr::read_matrix_market(ab.string());
  EXPECT_EQ(A.rows, n);
  EXPECT_EQ(A.nnz(), n);
  const std::vector<double> v = clkr::read_matrix_market_array(ab.string());
  EXPECT_EQ(v, std::vector<double>(n, 1.0));
}

TEST(MatrixMarketGzip, CorruptAndTruncatedGzipAreParseErrors) {
  const fs::path gz = scratch_dir() / "good.mtx.gz";
  write_gzip(gz, kSmall);
  const std::string bytes = read_text(gz);

  // Byte 10 (after the 10-byte gzip header) starts the first deflate block: 0x07 is a final block of
  // the reserved type 3, which inflate must reject.
  std::string corrupt = bytes;
  corrupt[10] = 0x07;
  const fs::path bad = scratch_dir() / "corrupt.mtx.gz";
  write_text(bad, corrupt);
  try {
    clkr::read_matrix_market(bad.string());
    ADD_FAILURE() << "corrupt gzip accepted";
  } catch (const clkr::ParseError& e) {
    EXPECT_EQ(e.file(), bad.string());
    EXPECT_NE(std::string(e.what()).find("corrupt gzip data"), std::string::npos) << e.what();
  }

  const fs::path cut = scratch_dir() / "truncated.mtx.gz";
  write_text(cut, bytes.substr(0, bytes.size() / 2));
  try {
    clkr::read_matrix_market(cut.string());
    ADD_FAILURE() << "truncated gzip accepted";
  } catch (const clkr::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated gzip data"), std::string::npos) << e.what();
  }
}

TEST(HostCsrMatrixValidate, NamesTheFirstBrokenInvariant) {
  const HostCsrMatrix good = awkward_matrix();
  EXPECT_NO_THROW(good.validate());
  auto expect_invalid = [](const HostCsrMatrix& A, const std::string& message) {
    try {
      A.validate();
      ADD_FAILURE() << "accepted; expected: " << message;
    } catch (const clkr::Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  HostCsrMatrix A = good;
  A.row_offsets.pop_back();
  expect_invalid(A, "row_offsets has 3 entries, expected rows + 1 = 4");
  A = good;
  A.row_offsets = {0, 3, 2, 6};
  expect_invalid(A, "row_offsets decreases at row 1 (3 then 2)");
  A = good;
  A.row_offsets[3] = 5;
  expect_invalid(A, "row_offsets[rows] is 5 but there are 6 column indices");
  A = good;
  A.values.pop_back();
  expect_invalid(A, "values has 5 entries but col_indices has 6");
  A = good;
  A.col_indices[1] = 5;
  expect_invalid(A, "column index 5 in row 0 out of range [0, 5)");
  A = good;
  A.col_indices[1] = 0;
  expect_invalid(A, "column indices of row 0 not strictly increasing (0 then 0)");
  A = good;
  A.values[4] = std::nan("");
  expect_invalid(A, "non-finite value at (2, 3)");
  A = good;
  A.symmetric = true;
  expect_invalid(A, "declared symmetric but not square (3 x 5)");
}

// --- Speed --------------------------------------------------------------------------------------

TEST(MatrixMarketSpeed, ParsesFiftyMegabytesQuickly) {
  // Entries shaped like real files: 6-7 digit indices and 17-digit values, from a fixed LCG.
  const std::int64_t rows = 1000000;
  std::string body;
  body.reserve(52u << 20);
  std::uint64_t state = 42;
  std::int64_t entries = 0;
  char buffer[64];
  while (body.size() < 50u << 20) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::int64_t r = static_cast<std::int64_t>(state >> 33) % rows + 1;
    const std::int64_t c = static_cast<std::int64_t>(state >> 13) % rows + 1;
    const double v = static_cast<double>(static_cast<std::int64_t>(state >> 11)) * 0x1p-53 - 0.5;
    char* p = std::to_chars(buffer, buffer + sizeof buffer, r).ptr;
    *p++ = ' ';
    p = std::to_chars(p, buffer + sizeof buffer, c).ptr;
    *p++ = ' ';
    p = std::to_chars(p, buffer + sizeof buffer, v, std::chars_format::general, 17).ptr;
    *p++ = '\n';
    body.append(buffer, p);
    ++entries;
  }
  const std::string text =
      kGeneral + std::to_string(rows) + " " + std::to_string(rows) + " " + std::to_string(entries) + "\n" + body;
  const auto start = std::chrono::steady_clock::now();
  const HostCsrMatrix A = clkr::parse_matrix_market(text, "speed.mtx");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double mb_per_s = static_cast<double>(text.size()) / 1e6 / seconds;
  std::cout << "[ perf     ] parse_matrix_market: " << text.size() / 1000000 << " MB, " << entries << " entries in "
            << seconds << " s = " << mb_per_s << " MB/s\n";
  RecordProperty("MBps", std::to_string(mb_per_s));
  EXPECT_EQ(A.rows, rows);
  EXPECT_LE(A.nnz(), entries);
  EXPECT_GT(A.nnz(), entries * 9 / 10);  // a few random duplicates merge
  EXPECT_GT(mb_per_s, 20.0);
}

}  // namespace
