// The powerlaw generator: the issue's shape (rows of 15 to about 1,000 entries, mean about 57),
// symmetric and strictly diagonally dominant (SPD), deterministic, the spec and its options, and the
// refusals of sizes beyond int32 before anything large is allocated.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

struct RowStats {
  std::int64_t shortest = 0, longest = 0;
  double mean = 0;
};

RowStats row_stats(const HostCsrMatrix& A) {
  RowStats s{A.cols, 0, static_cast<double>(A.nnz()) / A.rows};
  for (std::int32_t i = 0; i < A.rows; ++i) {
    const std::int64_t length = A.row_offsets[i + 1] - A.row_offsets[i];
    s.shortest = std::min(s.shortest, length);
    s.longest = std::max(s.longest, length);
  }
  return s;
}

TEST(PowerLaw, HasTheIssuesRowLengths) {
  const HostCsrMatrix A = load_matrix("powerlaw:30000");
  A.validate();
  EXPECT_EQ(A.rows, 30000);
  EXPECT_TRUE(A.symmetric);
  const RowStats s = row_stats(A);
  EXPECT_GE(s.shortest, 13);  // 15, less a pair repeated or with the row itself
  EXPECT_LE(s.longest, 1015);
  EXPECT_GE(s.longest, 900);
  EXPECT_NEAR(s.mean, 57, 3);
  EXPECT_GT(s.longest / s.mean, 15);  // what makes a row-per-work-item SpMV wait on one row
}

TEST(PowerLaw, IsSymmetricAndStrictlyDiagonallyDominant) {
  const HostCsrMatrix A = powerlaw(3000);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double diagonal = 0, off = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = A.col_indices[k];
      if (j == i) {
        diagonal = A.values[k];
        continue;
      }
      EXPECT_LT(A.values[k], -0.5 + 1e-300) << "entry (" << i << ", " << j << ")";
      EXPECT_GE(A.values[k], -1.0) << "entry (" << i << ", " << j << ")";
      off += -A.values[k];
      // A(j, i) holds the same value.
      const auto first = A.col_indices.begin() + A.row_offsets[j], last = A.col_indices.begin() + A.row_offsets[j + 1];
      const auto mirror = std::lower_bound(first, last, i);
      ASSERT_TRUE(mirror != last && *mirror == i) << "(" << i << ", " << j << ") has no mirror";
      EXPECT_EQ(A.values[mirror - A.col_indices.begin()], A.values[k]);
    }
    EXPECT_GE(diagonal - off, 1.0) << "row " << i;
    EXPECT_LT(diagonal - off, 2.0) << "row " << i;
  }
}

TEST(PowerLaw, IsDeterministicAndTheSeedMatters) {
  const HostCsrMatrix a = powerlaw(2000), b = powerlaw(2000);
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.col_indices, b.col_indices);
  EXPECT_EQ(a.values, b.values);
  PowerLawOptions other;
  other.seed = 2;
  EXPECT_NE(powerlaw(2000, other).col_indices, a.col_indices);
}

TEST(PowerLaw, OptionsAndTinySizes) {
  PowerLawOptions wide;
  wide.min_row_length = 1;
  wide.max_row_length = 10000;
  const RowStats s = row_stats(powerlaw(20000, wide));
  EXPECT_EQ(s.shortest, 1);
  EXPECT_GT(s.longest, 1000);
  // The spec's MAXROW, and rows capped by the columns there are.
  EXPECT_LE(row_stats(load_matrix("powerlaw:5000:100")).longest, 100);
  EXPECT_LE(row_stats(load_matrix("powerlaw:40")).longest, 40);
  const HostCsrMatrix one = load_matrix("powerlaw:1");
  EXPECT_EQ(one.nnz(), 1);
  EXPECT_GE(one.values[0], 1.0);
}

TEST(PowerLaw, BadSpecsAndSizesAreRefusedQuickly) {
  for (const char* spec : {"powerlaw:0", "powerlaw:x", "powerlaw:10:0", "powerlaw:10:2.5", "powerlaw:10:y"})
    EXPECT_THROW(load_matrix(spec), Error) << spec;
  PowerLawOptions bad;
  bad.min_row_length = 20;
  bad.max_row_length = 10;
  EXPECT_THROW(powerlaw(100, bad), Error);
  bad = PowerLawOptions{};
  bad.exponent = 0;
  EXPECT_THROW(powerlaw(100, bad), Error);
  // 2e9 rows of 15 or more entries: some 10^11 nonzeros (64-bit row offsets), refused by the host
  // memory check before the rows are made.
  const auto start = std::chrono::steady_clock::now();
  try {
    load_matrix("powerlaw:2000000000");
    ADD_FAILURE() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("powerlaw: n = 2000000000 (2000000000 rows, about 1"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("of host memory"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  const DeclaredSize size = declared_size("powerlaw:1000:50");
  EXPECT_TRUE(size.known);
  EXPECT_EQ(size.rows, 1000);
  EXPECT_EQ(size.max_nnz, 50000);
}

}  // namespace
}  // namespace clkr
