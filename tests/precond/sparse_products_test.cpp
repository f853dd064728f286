// detail::amg::transpose, multiply and triple_product (and their numeric refreshes) against long double
// references on random rectangular matrices with empty rows and columns and explicit zeros, from 0 rows
// to thousands (several OpenMP blocks): structural patterns, sorted columns, refreshes exact.
#include "precond/amg/sparse_products.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "amg_test_support.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace clkr {
namespace {

namespace amg = detail::amg;

using test::random_sparse;

// The same pattern with new values (some of them zero).
HostCsrMatrix new_values(HostCsrMatrix A, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (double& v : A.values) v = rng() % 8 == 0 ? 0.0 : u(rng);
  return A;
}

// One row of a reference product: every column some product term reaches (the structural pattern,
// whatever the values), with the exact sum and the sum of |terms| in long double.
struct ReferenceRow {
  std::vector<std::int32_t> cols;
  std::vector<long double> sums, magnitudes;
  std::vector<int> terms;
};

// The rows of a product from its terms: row_terms(i, add) calls add(col, term) for each term of row i.
// A dense accumulator per row, long double.
template <class RowTerms>
std::vector<ReferenceRow> reference_rows(std::int32_t rows, std::int32_t cols, const RowTerms& row_terms) {
  std::vector<ReferenceRow> out(static_cast<std::size_t>(rows));
  std::vector<long double> sum(static_cast<std::size_t>(cols)), magnitude(static_cast<std::size_t>(cols));
  std::vector<int> terms(static_cast<std::size_t>(cols), 0);
  for (std::int32_t i = 0; i < rows; ++i) {
    row_terms(i, [&](std::int32_t j, long double term) {
      sum[j] += term;
      magnitude[j] += std::fabs(term);
      ++terms[j];
    });
    for (std::int32_t j = 0; j < cols; ++j) {
      if (terms[j] == 0) continue;
      out[i].cols.push_back(j);
      out[i].sums.push_back(sum[j]);
      out[i].magnitudes.push_back(magnitude[j]);
      out[i].terms.push_back(terms[j]);
      sum[j] = magnitude[j] = 0;
      terms[j] = 0;
    }
  }
  return out;
}

// A B, term by term from the definition C_ij = sum_k A_ik B_kj over stored entries.
std::vector<ReferenceRow> reference_product(const HostCsrMatrix& A, const HostCsrMatrix& B) {
  return reference_rows(A.rows, B.cols, [&](std::int32_t i, const auto& add) {
    for (std::int32_t ka = A.row_offsets[i]; ka < A.row_offsets[i + 1]; ++ka)
      for (std::int32_t kb = B.row_offsets[A.col_indices[ka]]; kb < B.row_offsets[A.col_indices[ka] + 1]; ++kb)
        add(B.col_indices[kb], static_cast<long double>(A.values[ka]) * B.values[kb]);
  });
}

// R A P, C_IJ = sum_k sum_j R_Ik A_kj P_jJ.
std::vector<ReferenceRow> reference_triple(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P) {
  return reference_rows(R.rows, P.cols, [&](std::int32_t I, const auto& add) {
    for (std::int32_t kr = R.row_offsets[I]; kr < R.row_offsets[I + 1]; ++kr) {
      const std::int32_t k = R.col_indices[kr];
      for (std::int32_t ka = A.row_offsets[k]; ka < A.row_offsets[k + 1]; ++ka) {
        const std::int32_t j = A.col_indices[ka];
        for (std::int32_t kp = P.row_offsets[j]; kp < P.row_offsets[j + 1]; ++kp)
          add(P.col_indices[kp], static_cast<long double>(R.values[kr]) * A.values[ka] * P.values[kp]);
      }
    }
  });
}

// C has the reference's shape and pattern exactly (columns ascending, validate()) and each value is
// within the rounding of a double sum of `terms` products of `factors` factors: (terms + factors) u sum |term|.
void expect_matches(const HostCsrMatrix& C, std::int32_t rows, std::int32_t cols,
                    const std::vector<ReferenceRow>& reference, int factors) {
  ASSERT_EQ(C.rows, rows);
  ASSERT_EQ(C.cols, cols);
  ASSERT_NO_THROW(C.validate());
  const double u = 0x1.0p-53;
  for (std::int32_t i = 0; i < rows; ++i) {
    const ReferenceRow& ref = reference[i];
    const std::vector<std::int32_t> got(C.col_indices.begin() + C.row_offsets[i],
                                        C.col_indices.begin() + C.row_offsets[i + 1]);
    ASSERT_EQ(got, ref.cols) << "pattern of row " << i;
    for (std::size_t e = 0; e < got.size(); ++e) {
      const double value = C.values[C.row_offsets[i] + e];
      ASSERT_LE(std::fabs(value - ref.sums[e]), (ref.terms[e] + factors) * u * ref.magnitudes[e])
          << "C(" << i << "," << got[e] << ") = " << value << ", expected " << static_cast<double>(ref.sums[e]);
    }
  }
}

struct Shape {
  std::int32_t m, n, k;  // A is m x n, B is n x k
  int per_row;
};

// 0 rows, 1 row, an empty inner dimension, small, and past a few thousand rows (many OpenMP blocks).
const std::vector<Shape> kShapes = {{0, 5, 3, 2},   {1, 6, 4, 3},    {4, 0, 3, 2},       {3, 1, 1, 1},
                                    {17, 9, 23, 4}, {60, 45, 70, 6}, {257, 300, 128, 5}, {5003, 4001, 2999, 6}};

TEST(SparseTranspose, IsTheTransposeWithPositions) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    const HostCsrMatrix A = random_sparse(s.m, s.n, s.per_row, 1 + s.m);
    const amg::Transpose t = amg::transpose(A);
    const HostCsrMatrix& At = t.matrix;
    ASSERT_EQ(At.rows, A.cols);
    ASSERT_EQ(At.cols, A.rows);
    ASSERT_NO_THROW(At.validate());  // columns ascending within rows
    ASSERT_EQ(At.nnz(), A.nnz());    // explicit zeros kept
    ASSERT_EQ(t.position.size(), A.values.size());
    std::vector<char> used(A.values.size(), 0);
    for (std::int32_t i = 0; i < A.rows; ++i) {
      for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
        const std::int64_t p = t.position[k];
        const std::int32_t j = A.col_indices[k];
        ASSERT_TRUE(p >= At.row_offsets[j] && p < At.row_offsets[j + 1]) << "entry " << k << " not in row " << j;
        ASSERT_EQ(At.col_indices[p], i);
        ASSERT_EQ(At.values[p], A.values[k]);
        ASSERT_FALSE(used[p]) << "two entries moved to position " << p;
        used[p] = 1;
      }
    }
    // (A^T)^T = A, exactly.
    const HostCsrMatrix back = amg::transpose(At).matrix;
    EXPECT_EQ(back.row_offsets, A.row_offsets);
    EXPECT_EQ(back.col_indices, A.col_indices);
    EXPECT_EQ(back.values, A.values);
  }
}

TEST(SparseTranspose, ValuesRefreshEqualsAFreshTranspose) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    const HostCsrMatrix A = random_sparse(s.m, s.n, s.per_row, 2 + s.m);
    amg::Transpose t = amg::transpose(A);
    const HostCsrMatrix A2 = new_values(A, 5);
    amg::transpose_values(A2, t);
    const amg::Transpose fresh = amg::transpose(A2);
    EXPECT_EQ(t.matrix.row_offsets, fresh.matrix.row_offsets);
    EXPECT_EQ(t.matrix.col_indices, fresh.matrix.col_indices);
    EXPECT_EQ(t.matrix.values, fresh.matrix.values);
  }
}

TEST(SparseMultiply, MatchesTheLongDoubleProduct) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k));
    const HostCsrMatrix A = random_sparse(s.m, s.n, s.per_row, 3 + s.m), B = random_sparse(s.n, s.k, s.per_row, 4);
    const HostCsrMatrix C = amg::multiply(A, B);
    expect_matches(C, s.m, s.k, reference_product(A, B), 2);
  }
}

TEST(SparseMultiply, ValuesRefreshEqualsAFreshProductExactly) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k));
    const HostCsrMatrix A = random_sparse(s.m, s.n, s.per_row, 5 + s.m), B = random_sparse(s.n, s.k, s.per_row, 6);
    HostCsrMatrix C = amg::multiply(A, B);
    const HostCsrMatrix A2 = new_values(A, 7), B2 = new_values(B, 8);
    const std::vector<std::int32_t> pattern = C.col_indices;
    amg::multiply_values(A2, B2, C);
    const HostCsrMatrix fresh = amg::multiply(A2, B2);
    EXPECT_EQ(C.col_indices, pattern) << "the refresh changed the pattern";
    EXPECT_EQ(C.row_offsets, fresh.row_offsets);
    EXPECT_EQ(C.col_indices, fresh.col_indices);
    EXPECT_EQ(C.values, fresh.values);
  }
}

TEST(SparseTripleProduct, MatchesTheLongDoubleProduct) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k));
    // R (m x n) A (n x n) P (n x k): with P = R^T, the Galerkin product of the AMG.
    const HostCsrMatrix R = random_sparse(s.m, s.n, s.per_row, 9 + s.m), A = random_sparse(s.n, s.n, 5, 10);
    const HostCsrMatrix P = random_sparse(s.n, s.k, 2, 11);
    expect_matches(amg::triple_product(R, A, P).RAP, s.m, s.k, reference_triple(R, A, P), 3);
    const HostCsrMatrix Rt = amg::transpose(R).matrix;
    expect_matches(amg::triple_product(R, A, Rt).RAP, s.m, s.m, reference_triple(R, A, Rt), 3);
  }
}

TEST(SparseTripleProduct, ValuesRefreshEqualsAFreshProductExactly) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k));
    const HostCsrMatrix R = random_sparse(s.m, s.n, s.per_row, 12 + s.m), A = random_sparse(s.n, s.n, 5, 13);
    const HostCsrMatrix P = random_sparse(s.n, s.k, 2, 14);
    amg::TripleProduct C = amg::triple_product(R, A, P);
    const HostCsrMatrix R2 = new_values(R, 15), A2 = new_values(A, 16), P2 = new_values(P, 17);
    amg::triple_product_values(R2, A2, P2, C);
    const HostCsrMatrix fresh = amg::triple_product(R2, A2, P2).RAP;
    EXPECT_EQ(C.RAP.row_offsets, fresh.row_offsets);
    EXPECT_EQ(C.RAP.col_indices, fresh.col_indices);
    EXPECT_EQ(C.RAP.values, fresh.values);
  }
}

HostCsrMatrix dense_matrix(std::int32_t rows, std::int32_t cols, const std::vector<double>& values) {
  HostCsrMatrix M;
  M.rows = rows;
  M.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    for (std::int32_t j = 0; j < cols; ++j) {
      M.col_indices.push_back(j);
      M.values.push_back(values[static_cast<std::size_t>(i) * cols + j]);
    }
    M.row_offsets.push_back(static_cast<std::int64_t>(M.col_indices.size()));
  }
  return M;
}

TEST(SparseProducts, PatternsAreStructural) {
  // [1 1] [1; -1] = [0]: the entry cancels but is kept, and so is a product of an explicit zero.
  const HostCsrMatrix row = dense_matrix(1, 2, {1, 1}), column = dense_matrix(2, 1, {1, -1});
  const HostCsrMatrix C = amg::multiply(row, column);
  ASSERT_EQ(C.nnz(), 1);
  EXPECT_EQ(C.values[0], 0.0);
  const HostCsrMatrix zero = dense_matrix(1, 1, {0}), five = dense_matrix(1, 1, {5});
  EXPECT_EQ(amg::multiply(zero, five).nnz(), 1);
  // R A P = [1 1] I [1; -1] = [0], kept.
  const HostCsrMatrix identity = dense_matrix(2, 2, {1, 0, 0, 1});
  const HostCsrMatrix T = amg::triple_product(row, identity, column).RAP;
  ASSERT_EQ(T.nnz(), 1);
  EXPECT_EQ(T.values[0], 0.0);
  // A refresh whose values no longer cancel fills the kept entry.
  HostCsrMatrix refreshed = C;
  amg::multiply_values(row, dense_matrix(2, 1, {1, 2}), refreshed);
  EXPECT_EQ(refreshed.values[0], 3.0);
}

#ifdef _OPENMP
// The products split their rows into blocks per thread: 1, 2, 3 and 7 threads must give the same
// matrices bit for bit (each row is summed by one thread in a fixed order).
TEST(SparseProducts, ResultsDoNotDependOnTheThreadCount) {
  const int saved = omp_get_max_threads();
  const HostCsrMatrix R = random_sparse(1500, 2000, 6, 21), A = random_sparse(2000, 2000, 5, 22);
  const HostCsrMatrix P = amg::transpose(R).matrix;
  omp_set_num_threads(1);
  const HostCsrMatrix C1 = amg::triple_product(R, A, P).RAP, M1 = amg::multiply(A, P);
  for (int threads : {2, 3, 7}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    omp_set_num_threads(threads);
    const amg::TripleProduct T = amg::triple_product(R, A, P);
    const HostCsrMatrix& C = T.RAP;
    const HostCsrMatrix M = amg::multiply(A, P);
    EXPECT_EQ(C.row_offsets, C1.row_offsets);
    EXPECT_EQ(C.col_indices, C1.col_indices);
    EXPECT_EQ(C.values, C1.values);
    EXPECT_EQ(M.row_offsets, M1.row_offsets);
    EXPECT_EQ(M.col_indices, M1.col_indices);
    EXPECT_EQ(M.values, M1.values);
    amg::TripleProduct refreshed = T;
    amg::triple_product_values(R, A, P, refreshed);
    EXPECT_EQ(refreshed.RAP.values, C1.values);
  }
  omp_set_num_threads(saved);
}
#endif

}  // namespace
}  // namespace clkr
