// detail::amg::dense_inverse: A X = I for SPD (LDL^T), nonsymmetric and symmetric indefinite (LU)
// matrices of 1 to 500 unknowns, the pseudo-inverse of singular pure-Neumann Laplacians, and refusals.
#include "precond/amg/coarse_solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

using DenseSquare = std::vector<long double>;  // row-major n x n
using test::kU;

HostCsrMatrix to_csr(const std::vector<double>& a, std::int32_t n) {
  HostCsrMatrix M;
  M.rows = M.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = 0; j < n; ++j) {
      const double v = a[static_cast<std::size_t>(i) * n + j];
      if (v == 0) continue;
      M.col_indices.push_back(j);
      M.values.push_back(v);
    }
    M.row_offsets.push_back(static_cast<std::int64_t>(M.col_indices.size()));
  }
  return M;
}

DenseSquare to_dense(const HostCsrMatrix& A) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  DenseSquare d(n * static_cast<std::size_t>(A.cols), 0.0L);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) d[i * n + A.col_indices[k]] = A.values[k];
  return d;
}

DenseSquare product(const DenseSquare& a, const DenseSquare& b, std::size_t n) {
  DenseSquare c(n * n, 0.0L);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const long double aik = a[i * n + k];
      if (aik == 0) continue;
      for (std::size_t j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
  return c;
}

long double max_abs(const DenseSquare& a) {
  long double m = 0;
  for (long double v : a) m = std::max(m, std::fabs(v));
  return m;
}

long double infinity_norm(const DenseSquare& a, std::size_t n) {
  long double m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    long double row = 0;
    for (std::size_t j = 0; j < n; ++j) row += std::fabs(a[i * n + j]);
    m = std::max(m, row);
  }
  return m;
}

// The inverse is n x n with every entry stored (a dense CSR matrix), columns ascending.
void expect_dense_layout(const detail::amg::DenseInverse& result, std::int32_t n) {
  ASSERT_EQ(result.inverse.rows, n);
  ASSERT_EQ(result.inverse.cols, n);
  ASSERT_EQ(result.inverse.nnz(), static_cast<std::int64_t>(n) * n);
  ASSERT_NO_THROW(result.inverse.validate());
}

// max |A X - I| within the backward error of an inversion, c n u ||A|| ||X|| (Higham, Accuracy and
// Stability, 14.3), c = 4.
void expect_inverse(const HostCsrMatrix& A, const detail::amg::DenseInverse& result) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  expect_dense_layout(result, A.rows);
  const DenseSquare a = to_dense(A), x = to_dense(result.inverse);
  DenseSquare residual = product(a, x, n);
  for (std::size_t i = 0; i < n; ++i) residual[i * n + i] -= 1;
  const long double bound = 4.0L * n * kU * infinity_norm(a, n) * infinity_norm(x, n);
  EXPECT_LE(max_abs(residual), bound) << "max |A X - I|";
}

std::vector<double> random_dense(std::int32_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(static_cast<std::size_t>(n) * n);
  for (double& v : a) v = u(rng);
  return a;
}

// B B^T / n + I: SPD with eigenvalues in [1, ~5].
HostCsrMatrix random_spd(std::int32_t n, unsigned seed) {
  const std::vector<double> b = random_dense(n, seed);
  std::vector<double> a(b.size(), 0.0);
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = 0; j <= i; ++j) {
      long double s = 0;
      for (std::int32_t k = 0; k < n; ++k) s += static_cast<long double>(b[i * n + k]) * b[j * n + k];
      a[i * n + j] = a[j * n + i] = static_cast<double>(s / n) + (i == j ? 1.0 : 0.0);
    }
  return to_csr(a, n);
}

// Random entries plus 2 sqrt(n) on the diagonal: nonsymmetric and comfortably nonsingular.
HostCsrMatrix random_nonsymmetric(std::int32_t n, unsigned seed) {
  std::vector<double> a = random_dense(n, seed);
  for (std::int32_t i = 0; i < n; ++i) a[i * n + i] += 2 * std::sqrt(static_cast<double>(n)) * (i % 2 ? 1 : -1);
  return to_csr(a, n);
}

// S + S^T with eigenvalues of both signs, shifted away from singular by +-2 sqrt(n) on alternate
// diagonal entries (the first diagonal entry negative: LDL^T meets a negative pivot at once).
HostCsrMatrix random_symmetric_indefinite(std::int32_t n, unsigned seed) {
  const std::vector<double> s = random_dense(n, seed);
  std::vector<double> a(s.size());
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = 0; j < n; ++j)
      a[i * n + j] =
          s[i * n + j] + s[j * n + i] + (i == j ? 2 * std::sqrt(static_cast<double>(n)) * (i % 2 ? 1 : -1) : 0);
  return to_csr(a, n);
}

// 31, 33: a panel of LDL^T (32 columns) -+ 1; 257: past the parallel threshold of the inverse.
const std::vector<std::int32_t> kCoarseSizes = {1, 2, 3, 31, 33, 100, 257, 500};

TEST(DenseInverse, SpdMatricesByLdlt) {
  for (std::int32_t n : kCoarseSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const HostCsrMatrix A = random_spd(n, 10 + n);
    const auto result = detail::amg::dense_inverse(A, 3);
    EXPECT_TRUE(result.symmetric);
    EXPECT_EQ(result.dropped, 0);
    expect_inverse(A, result);
    // Exactly symmetric, as the V-cycle's symmetry (PCG needs a symmetric M) wants its coarse solve.
    const std::vector<double>& x = result.inverse.values;
    int asymmetric = 0;
    for (std::int32_t i = 0; i < n; ++i)
      for (std::int32_t j = 0; j < i; ++j) asymmetric += x[i * n + j] != x[j * n + i] ? 1 : 0;
    EXPECT_EQ(asymmetric, 0);
  }
  const HostCsrMatrix poisson = poisson2d(10);  // sparse SPD, kappa ~ 50
  const auto result = detail::amg::dense_inverse(poisson, 0);
  EXPECT_TRUE(result.symmetric);
  EXPECT_EQ(result.dropped, 0);
  expect_inverse(poisson, result);
}

TEST(DenseInverse, NonsymmetricMatricesByLu) {
  for (std::int32_t n : kCoarseSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    if (n == 1) continue;  // a 1 x 1 matrix is symmetric
    const HostCsrMatrix A = random_nonsymmetric(n, 20 + n);
    const auto result = detail::amg::dense_inverse(A, 3);
    EXPECT_FALSE(result.symmetric);
    EXPECT_EQ(result.dropped, 0);
    expect_inverse(A, result);
  }
}

TEST(DenseInverse, SymmetricIndefiniteMatricesFallBackToLu) {
  for (std::int32_t n : kCoarseSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const HostCsrMatrix A = random_symmetric_indefinite(n, 30 + n);
    const auto result = detail::amg::dense_inverse(A, 3);
    EXPECT_FALSE(result.symmetric) << "an indefinite matrix was factored by LDL^T";
    expect_inverse(A, result);
  }
}

// Symmetric, nonsingular and indefinite, but with a zero pivot in LDL^T before any negative one:
// [0 1; 1 0] (eigenvalues -1, 1) and [1 1 0; 1 1 1; 0 1 1] (det -1, the second pivot 1 - 1 = 0). A
// zero pivot of a positive semidefinite matrix has a zero column below it; here it does not.
// The third: the identity with a zero pivot in LDL^T's second panel (row 40) whose nonzero column
// entry (row 290) is in the rows below it, which are finished in parallel.
TEST(DenseInverse, SymmetricIndefiniteWithAZeroPivotIsStillInverted) {
  std::vector<double> panels(300 * 300, 0.0);
  for (std::size_t i = 0; i < 300; ++i) panels[i * 300 + i] = 1;
  panels[40 * 300 + 40] = 0;
  panels[40 * 300 + 290] = panels[290 * 300 + 40] = 1;
  for (const auto& [a, n] :
       {std::make_pair(std::vector<double>{0, 1, 1, 0}, 2),
        std::make_pair(std::vector<double>{1, 1, 0, 1, 1, 1, 0, 1, 1}, 3), std::make_pair(panels, 300)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const HostCsrMatrix A = to_csr(a, n);
    const auto result = detail::amg::dense_inverse(A, 1);
    EXPECT_EQ(result.dropped, 0) << "a pivot of a nonsingular matrix was dropped";
    expect_inverse(A, result);
  }
}

// The pure-Neumann Laplacian of a path (1D) or a grid (2D): the graph Laplacian, symmetric positive
// semidefinite with the constants as its null space.
HostCsrMatrix neumann_laplacian(std::int32_t nx, std::int32_t ny) {
  const std::int32_t n = nx * ny;
  std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
  const auto link = [&](std::int32_t p, std::int32_t q) {
    a[static_cast<std::size_t>(p) * n + q] -= 1;
    a[static_cast<std::size_t>(q) * n + p] -= 1;
    a[static_cast<std::size_t>(p) * n + p] += 1;
    a[static_cast<std::size_t>(q) * n + q] += 1;
  };
  for (std::int32_t y = 0; y < ny; ++y)
    for (std::int32_t x = 0; x < nx; ++x) {
      if (x + 1 < nx) link(y * nx + x, y * nx + x + 1);
      if (y + 1 < ny) link(y * nx + x, (y + 1) * nx + x);
    }
  return to_csr(a, n);
}

TEST(DenseInverse, SingularNeumannLaplacianGetsAGeneralisedInverse) {
  for (const auto& [nx, ny] : {std::make_pair(50, 1), std::make_pair(8, 8), std::make_pair(2, 1)}) {
    SCOPED_TRACE(std::to_string(nx) + " x " + std::to_string(ny));
    const HostCsrMatrix A = neumann_laplacian(nx, ny);
    const std::size_t n = static_cast<std::size_t>(A.rows);
    const auto result = detail::amg::dense_inverse(A, 2);
    EXPECT_TRUE(result.symmetric);
    EXPECT_EQ(result.dropped, 1) << "the null space is one-dimensional";
    expect_dense_layout(result, A.rows);
    const DenseSquare a = to_dense(A), x = to_dense(result.inverse);
    const long double norm_a = infinity_norm(a, n), norm_x = infinity_norm(x, n);
    // A X A = A up to the rounding of the factorisation.
    DenseSquare axa = product(product(a, x, n), a, n);
    for (std::size_t k = 0; k < axa.size(); ++k) axa[k] -= a[k];
    EXPECT_LE(max_abs(axa), 4.0L * n * kU * norm_a * norm_x * norm_a) << "max |A X A - A|";
    // X = L^-T D^+ L^-1 is symmetric (its columns are computed separately: to rounding).
    long double asymmetry = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < i; ++j) asymmetry = std::max(asymmetry, std::fabs(x[i * n + j] - x[j * n + i]));
    EXPECT_LE(asymmetry, 4.0L * n * kU * norm_x) << "max |X - X^T|";
    // So for a right-hand side in the range of A (orthogonal to the constants) x = X b solves A x = b.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<long double> y(n), b(n, 0.0L), xb(n, 0.0L), axb(n, 0.0L);
    for (long double& e : y) e = u(rng);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) b[i] += a[i * n + j] * y[j];
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) xb[i] += x[i * n + j] * b[j];
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) axb[i] += a[i * n + j] * xb[j];
    long double error = 0;
    for (std::size_t i = 0; i < n; ++i) error = std::max(error, std::fabs(axb[i] - b[i]));
    EXPECT_LE(error, 4.0L * n * kU * norm_a * norm_x * test::norm_long(b)) << "max |A X b - b|";
  }
}

TEST(DenseInverse, SingularNonsymmetricIsRefusedNamingTheLevel) {
  // Row 2 = row 0: singular; the random rest keeps it nonsymmetric.
  std::vector<double> a = random_dense(6, 40);
  std::copy_n(a.begin(), 6, a.begin() + 12);
  test::expect_error_naming([&] { detail::amg::dense_inverse(to_csr(a, 6), 4); }, "level 4");
  // A zero column.
  std::vector<double> b = random_dense(5, 41);
  for (int i = 0; i < 5; ++i) b[i * 5 + 3] = 0;
  test::expect_error_naming([&] { detail::amg::dense_inverse(to_csr(b, 5), 7); }, "level 7");
}

TEST(DenseInverse, NonFiniteValuesAreRefused) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    HostCsrMatrix A = random_spd(4, 1);
    A.values[5] = bad;
    test::expect_error_naming([&] { detail::amg::dense_inverse(A, 2); }, "level 2");
  }
}

}  // namespace
}  // namespace clkr
