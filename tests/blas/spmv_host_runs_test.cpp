// The host backend's SpMV over runs of rows with the same columns (Matrix::host_row_runs): where the
// runs are, and that reading a run's columns and x once changes no bit of what the row loop computes.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "../../src/data/row_runs.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/runtime/error.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

const Shape& node_runs_shape() {
  for (const Shape& s : shapes())
    if (s.name == "node_runs_1023x1023") return s;
  throw Error("no node_runs shape");
}

// Row i of A x with four partial sums (entries k, k + 1, k + 2, k + 3 of the row to sums 0-3, the rest
// to sum 0, added as (s0 + s1) + (s2 + s3)): the host backend's order, written out again here.
double four_sums(const HostCsrMatrix& A, const std::vector<double>& x, std::int32_t i) {
  double s[4] = {0, 0, 0, 0};
  const std::int64_t begin = A.row_offsets[i], end = A.row_offsets[i + 1];
  std::int64_t k = begin;
  for (; k + 4 <= end; k += 4)
    for (int q = 0; q < 4; ++q) s[q] = A.values[k + q] * x[A.col_indices[k + q]] + s[q];
  for (; k < end; ++k) s[0] = A.values[k] * x[A.col_indices[k]] + s[0];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(RowRuns, RunsOfUpToThreeRowsWithTheSameColumns) {
  // Rows 0-4 share columns (a run of 3, then one of 2), row 5 has the same length elsewhere, rows 6-7
  // are empty (a run), row 8 alone.
  HostCsrMatrix A;
  A.rows = A.cols = 9;
  const std::vector<std::vector<std::int32_t>> rows = {{0, 2, 5}, {0, 2, 5}, {0, 2, 5}, {0, 2, 5}, {0, 2, 5},
                                                       {0, 2, 6}, {},        {},        {1, 8}};
  for (const auto& r : rows) {
    for (std::int32_t c : r) {
      A.col_indices.push_back(c);
      A.values.push_back(1.0 + c);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  EXPECT_TRUE(A.same_columns(0, 4));
  EXPECT_FALSE(A.same_columns(4, 5));  // the same length, another column
  EXPECT_FALSE(A.same_columns(5, 8));  // another length
  EXPECT_TRUE(A.same_columns(6, 7));   // both empty
  EXPECT_EQ(detail::row_runs(A), (std::vector<std::int32_t>{0, 3, 5, 6, 8, 9}));
}

TEST(RowRuns, NoneWhereRowsShareTooLittle) {
  // Random columns: no two neighbouring rows alike, so runs of one row would only cost.
  Shape s;
  s.rows = s.cols = 500;
  EXPECT_TRUE(detail::row_runs(random_matrix(s, 3)).empty());
  EXPECT_TRUE(detail::row_runs(HostCsrMatrix{}).empty());
  const std::vector<std::int32_t> runs = detail::row_runs(random_matrix(node_runs_shape(), 10));
  ASSERT_FALSE(runs.empty());
  EXPECT_LT(runs.size() * 3, static_cast<std::size_t>(2 * node_runs_shape().rows));  // 1.5 rows a run or more
}

// Every alpha/beta case and the residual epilogue, bit for bit the row loop's sums, on a matrix whose
// runs have lengths 0-45 (every remainder of the four-entry steps).
TEST(SpmvHostRuns, BitForBitTheRowLoop) {
  const HostCsrMatrix H = random_matrix(node_runs_shape(), 10);
  Matrix A(test_context(), H, Format::Csr);
  ASSERT_FALSE(A.host_row_runs().empty());
  const std::vector<double> xv = random_vector(static_cast<std::size_t>(H.cols), 4);
  const std::vector<double> yv = random_vector(static_cast<std::size_t>(H.rows), 5);
  Blas blas(test_context(), Location::Host, Precision::Double);
  for (const AlphaBeta& c : kAllCases) {
    Vector x(test_context(), xv, "x"), y(test_context(), yv, "y");
    blas.spmv(c.alpha, A, x, c.beta, y);
    const std::vector<double> got = y.to_host();
    for (std::int32_t i = 0; i < H.rows; ++i) {
      const double s = four_sums(H, xv, i);
      const double expected = c.beta == 0 ? c.alpha * s : c.beta * yv[i] + c.alpha * s;
      ASSERT_TRUE(same_bits(got[i], expected))
          << "alpha " << c.alpha << ", beta " << c.beta << ", row " << i << ": " << got[i] << " against " << expected;
    }
  }
  Vector x(test_context(), xv, "x"), b(test_context(), yv, "b"),
      r(test_context(), static_cast<std::size_t>(H.rows), "r");
  detail::SpmvEpilogue residual;
  residual.kind = detail::SpmvEpilogue::Kind::Residual;
  residual.b = &b;
  detail::spmv_epilogue_host(A, x, r, residual);
  const std::vector<double> got = r.to_host();
  for (std::int32_t i = 0; i < H.rows; ++i)
    ASSERT_TRUE(same_bits(got[i], yv[i] - four_sums(H, xv, i))) << "residual, row " << i;
}

}  // namespace
}  // namespace clkr
