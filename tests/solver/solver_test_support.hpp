// Shared by the solver tests: the test context, generated systems b = A x_true, reference norms in
// long double, condition numbers (exact for Poisson, estimated otherwise), test-matrix lookup, and the
// tolerance the tests solve to in each precision.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../once_per_process.hpp"
#include "../test_matrices.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/solver/solve.hpp"
#include "gtest/gtest.h"

namespace clkr::test {

inline std::shared_ptr<Context> context() {
  static std::shared_ptr<Context> shared = Context::create();
  return shared;
}

// Uniform in [-1, 1]: neither all ones nor all zeros, with both signs.
inline std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& e : v) e = uniform(engine);
  return v;
}

// A x with long double accumulation, rounded once.
inline std::vector<double> multiply(const HostCsrMatrix& A, const std::vector<double>& x) {
  std::vector<double> y(A.rows);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double sum = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
    }
    y[i] = static_cast<double>(sum);
  }
  return y;
}

// ||b - A x|| / ||b|| with every row's residual accumulated in long double.
inline double relative_residual(const HostCsrMatrix& A, const std::vector<double>& b, const std::vector<double>& x) {
  long double r_sum = 0, b_sum = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double r = b[i];
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      r -= static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
    }
    r_sum += r * r;
    b_sum += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(std::sqrt(r_sum / b_sum));
}

inline double norm(const std::vector<double>& v) {
  long double sum = 0;
  for (double e : v) sum += static_cast<long double>(e) * e;
  return static_cast<double>(std::sqrt(sum));
}

// ||x - y|| / ||y||
inline double relative_error(const std::vector<double>& x, const std::vector<double>& y) {
  long double diff = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double d = static_cast<long double>(x[i]) - y[i];
    diff += d * d;
  }
  return static_cast<double>(std::sqrt(diff)) / norm(y);
}

// (row, column, value) entries of a tridiagonal matrix: `diagonal` on the diagonal, `beside` next to it.
inline std::vector<std::tuple<std::int32_t, std::int32_t, double>> tridiagonal_entries(std::int32_t n, double diagonal,
                                                                                       double beside) {
  std::vector<std::tuple<std::int32_t, std::int32_t, double>> entries;
  for (std::int32_t i = 0; i < n; ++i) {
    entries.emplace_back(i, i, diagonal);
    if (i > 0) entries.emplace_back(i, i - 1, beside);
    if (i + 1 < n) entries.emplace_back(i, i + 1, beside);
  }
  return entries;
}

// A square matrix from (row, column, value) entries (summed when repeated).
inline HostCsrMatrix from_entries(std::int32_t n, std::vector<std::tuple<std::int32_t, std::int32_t, double>> entries) {
  std::sort(entries.begin(), entries.end());
  HostCsrMatrix A;
  A.rows = A.cols = n;
  A.row_offsets.assign(n + 1, 0);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const auto& [i, j, v] = entries[e];
    if (e > 0 && std::get<0>(entries[e - 1]) == i && std::get<1>(entries[e - 1]) == j) {
      A.values.back() += v;
      continue;
    }
    A.col_indices.push_back(j);
    A.values.push_back(v);
    ++A.row_offsets[i + 1];
  }
  for (std::int32_t i = 0; i < n; ++i) A.row_offsets[i + 1] += A.row_offsets[i];
  A.validate();
  return A;
}

// A with every entry of row `row` removed (a zero row: A becomes singular).
inline HostCsrMatrix without_row(HostCsrMatrix A, std::int32_t row) {
  const std::int32_t begin = A.row_offsets[row], end = A.row_offsets[row + 1];
  A.col_indices.erase(A.col_indices.begin() + begin, A.col_indices.begin() + end);
  A.values.erase(A.values.begin() + begin, A.values.begin() + end);
  for (std::int32_t i = row + 1; i <= A.rows; ++i) A.row_offsets[i] -= end - begin;
  return A;
}

// 2-D convection-diffusion -Laplace(u) + c . grad(u) on an n x n grid, central differences with
// mesh Peclet number `peclet` (< 2 keeps it an M-matrix-like, diagonally dominant system):
// non-symmetric, nonsingular.
inline HostCsrMatrix convection_diffusion(std::int32_t n, double peclet) {
  std::vector<std::tuple<std::int32_t, std::int32_t, double>> entries;
  const auto id = [n](std::int32_t i, std::int32_t j) { return i * n + j; };
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = 0; j < n; ++j) {
      entries.emplace_back(id(i, j), id(i, j), 4.0);
      if (i > 0) entries.emplace_back(id(i, j), id(i - 1, j), -1.0 - peclet / 2);
      if (i + 1 < n) entries.emplace_back(id(i, j), id(i + 1, j), -1.0 + peclet / 2);
      if (j > 0) entries.emplace_back(id(i, j), id(i, j - 1), -1.0 - peclet / 4);
      if (j + 1 < n) entries.emplace_back(id(i, j), id(i, j + 1), -1.0 + peclet / 4);
    }
  }
  return from_entries(n * n, std::move(entries));
}

// kappa_2 of poisson2d(n): the eigenvalues are 4 - 2 cos(i pi h) - 2 cos(j pi h), h = 1/(n+1), so
// kappa = sin^2(n pi h / 2) / sin^2(pi h / 2).
inline double poisson2d_condition(int n) {
  const double h = M_PI / (n + 1);
  return std::pow(std::sin(n * h / 2) / std::sin(h / 2), 2);
}

// S A S with S = diag(10^u), u uniform in [-spread, spread] (random_vector's values, seeded): a
// diagonal spanning 10^(4 spread) that Jacobi undoes exactly (D^-1/2 (SAS) D^-1/2 = D_A^-1/2 A D_A^-1/2
// with D = diag(SAS)), while CG without it slows down. `kappa_factor` = max(S)^2 / min(S)^2 bounds
// kappa(SAS) / kappa(A).
struct SymmetricScaling {
  SymmetricScaling(HostCsrMatrix A, double spread, unsigned seed) : matrix(std::move(A)) {
    std::vector<double> s = random_vector(matrix.rows, seed);
    for (double& e : s) e = std::pow(10.0, spread * e);
    for (std::int32_t i = 0; i < matrix.rows; ++i) {
      for (std::int64_t k = matrix.row_offsets[i]; k < matrix.row_offsets[i + 1]; ++k) {
        matrix.values[k] *= s[i] * s[matrix.col_indices[k]];
      }
    }
    const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    kappa_factor = (*hi / *lo) * (*hi / *lo);
  }
  HostCsrMatrix matrix;
  double kappa_factor = 1;
};

// S P S with P = poisson2d(n) and u in [-1.5, 1.5]: kappa(SPS) <= kappa(P) max(S)^2 / min(S)^2 is huge,
// but D^-1/2 (SPS) D^-1/2 = P / 4 with D = diag(SPS), so Jacobi-preconditioned CG runs like CG on P.
struct ScaledPoisson {
  explicit ScaledPoisson(int n) {
    SymmetricScaling scaled(poisson2d(n), 1.5, 99);
    matrix = std::move(scaled.matrix);
    kappa_bound = poisson2d_condition(n) * scaled.kappa_factor;
  }
  HostCsrMatrix matrix;
  double kappa_bound;
};

// kappa_2(A) = sigma_max / sigma_min estimated by power iteration on A'A (sigma_max) and inverse
// iteration on A'A through a dense LU of A (sigma_min), for matrices of up to a few thousand rows.
// Both Rayleigh quotients approach their extreme eigenvalue from inside the spectrum, so the
// estimate is a lower bound of kappa; callers allow a factor 2 for it (checked once against Eigen's
// JacobiSVD on the test matrices: every estimate was within 2% of the exact kappa_2).
inline double compute_condition_estimate(const HostCsrMatrix& A) {
  const std::int32_t n = A.rows;
  const auto multiply_transposed = [&](const std::vector<double>& y) {
    std::vector<double> z(n, 0.0);
    for (std::int32_t i = 0; i < n; ++i) {
      for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) z[A.col_indices[k]] += A.values[k] * y[i];
    }
    return z;
  };
  // Dense LU with partial pivoting, row-major.
  std::vector<double> lu(static_cast<std::size_t>(n) * n, 0.0);
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      lu[i * std::size_t(n) + A.col_indices[k]] = A.values[k];
  }
  for (std::int32_t c = 0; c < n; ++c) {
    std::int32_t p = c;
    for (std::int32_t i = c + 1; i < n; ++i) {
      if (std::abs(lu[i * std::size_t(n) + c]) > std::abs(lu[p * std::size_t(n) + c])) p = i;
    }
    if (p != c) std::swap_ranges(&lu[c * std::size_t(n)], &lu[c * std::size_t(n)] + n, &lu[p * std::size_t(n)]);
    const double d = lu[c * std::size_t(n) + c];
    if (d == 0) return INFINITY;
    for (std::int32_t i = c + 1; i < n; ++i) {
      double* row = &lu[i * std::size_t(n)];
      const double f = row[c] /= d;
      if (f == 0) continue;
      const double* pivot_row = &lu[c * std::size_t(n)];
      for (std::int32_t j = c + 1; j < n; ++j) row[j] -= f * pivot_row[j];
    }
  }
  const auto at = [&](std::int32_t i, std::int32_t j) { return lu[i * std::size_t(n) + j]; };
  // (A'A)^-1 z = A^-1 A^-T z = U^-1 L^-1 P P' L^-T U^-T z = U^-1 L^-1 L^-T U^-T z (P A = L U; the
  // permutation cancels).
  const auto inverse_normal = [&](std::vector<double> z) {
    for (std::int32_t i = 0; i < n; ++i) {  // U' w = z
      for (std::int32_t k = 0; k < i; ++k) z[i] -= at(k, i) * z[k];
      z[i] /= at(i, i);
    }
    for (std::int32_t i = n - 1; i >= 0; --i) {  // L' v = w
      for (std::int32_t k = i + 1; k < n; ++k) z[i] -= at(k, i) * z[k];
    }
    for (std::int32_t i = 0; i < n; ++i) {  // L v = w
      for (std::int32_t k = 0; k < i; ++k) z[i] -= at(i, k) * z[k];
    }
    for (std::int32_t i = n - 1; i >= 0; --i) {  // U x = v
      for (std::int32_t k = i + 1; k < n; ++k) z[i] -= at(i, k) * z[k];
      z[i] /= at(i, i);
    }
    return z;
  };
  // Rayleigh quotients of the symmetric operators A'A and (A'A)^-1, iterated to 1e-4 agreement (the
  // estimate need only be good to a small factor).
  const auto largest_eigenvalue = [&](auto&& apply) {
    std::vector<double> v = random_vector(n, 12345);
    double lambda = 0;
    for (int it = 0; it < 500; ++it) {
      const double scale = 1 / norm(v);
      for (double& e : v) e *= scale;
      std::vector<double> w = apply(v);
      long double dot = 0;
      for (std::int32_t i = 0; i < n; ++i) dot += static_cast<long double>(v[i]) * w[i];
      const double next = static_cast<double>(dot);
      v = std::move(w);
      if (std::abs(next - lambda) <= 1e-4 * next) return next;
      lambda = next;
    }
    return lambda;
  };
  const double sigma_max_squared =
      largest_eigenvalue([&](const std::vector<double>& v) { return multiply_transposed(multiply(A, v)); });
  const double inverse_sigma_min_squared = largest_eigenvalue(inverse_normal);
  return std::sqrt(sigma_max_squared * inverse_sigma_min_squared);
}

// compute_condition_estimate(A), once per matrix and process (its dense LU is O(n^3)); the key is the
// whole matrix.
inline double condition_estimate(const HostCsrMatrix& A) {
  return once_per_process(std::make_tuple(A.rows, A.cols, A.row_offsets, A.col_indices, A.values),
                          [&] { return compute_condition_estimate(A); });
}

// The unit roundoff of each precision's arithmetic. Quasi-double operations carry ~48 significant
// bits with error bounds of a few units of 2^-48 (Dekker, Joldes-Muller-Popescu), bounded here by 2^-44.
inline double unit_roundoff(Precision p) {
  switch (p) {
    case Precision::Single:
      return std::ldexp(1.0, -24);
    case Precision::QuasiDouble:
      return std::ldexp(1.0, -44);
    case Precision::Double:
      return std::ldexp(1.0, -53);
  }
  return 1;
}

// The largest ||b - A x|| / ||b|| (exact) that a solve can report as converged when it confirmed
// ||fl(b - A x)|| <= tol ||b|| in precision p: the computed norm is off by at most a factor 1 + n u,
// and fl(b - A x) = b - A x + e with |e| <= gamma(m + 2) (|b| + |A| |x|), m the longest row, gamma(k) =
// k u / (1 - k u) (Higham, Accuracy and Stability, 3.1 and 3.5), b and x taken as stored.
inline double converged_residual_bound(const HostCsrMatrix& A, const std::vector<double>& b,
                                       const std::vector<double>& x, Precision p, double tol) {
  const double u = unit_roundoff(p);
  std::int64_t longest = 0;
  std::vector<double> abs_ax(A.rows);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    longest = std::max(longest, A.row_offsets[i + 1] - A.row_offsets[i]);
    long double sum = std::abs(b[i]);
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += std::abs(static_cast<long double>(A.values[k]) * x[A.col_indices[k]]);
    }
    abs_ax[i] = static_cast<double>(sum);
  }
  const double gamma = (longest + 2) * u / (1 - (longest + 2) * u);
  return tol * (1 + A.rows * u) + gamma * norm(abs_ax) / norm(b);
}

// One system A x = b with b = A x_true (x_true random), on the device context.
struct System {
  System(const HostCsrMatrix& host_matrix, Format format, unsigned seed = 7)
      : System(host_matrix, format, MatrixOptions{}, seed) {}
  System(const HostCsrMatrix& host_matrix, Format format, const MatrixOptions& options, unsigned seed = 7)
      : host(host_matrix),
        A(context(), host, format, options),
        x_true(random_vector(host.rows, seed)),
        b(context(), multiply(host, x_true), "b"),
        x(context(), host.rows, "x") {}

  HostCsrMatrix host;
  Matrix A;
  std::vector<double> x_true;
  Vector b;
  Vector x;
};

// Parameter names for parameterised tests ("single", "csr", "gmres").
template <typename T>
std::string param_name(const ::testing::TestParamInfo<T>& param) {
  return to_string(param.param);
}

// The three precisions, for tests that run in each.
inline const Precision kPrecisions[] = {Precision::Single, Precision::QuasiDouble, Precision::Double};

// The relative tolerance the tests ask a solve in precision p for: 1e-5 in single, 1e-10 otherwise.
inline double tolerance_for(Precision p) { return p == Precision::Single ? 1e-5 : 1e-10; }

// A converged solve of `system` in precision p to relative tolerance `tol`: the true residual
// (recomputed here in long double) within converged_residual_bound, the result's own true residual
// agreeing with it, and the forward error within kappa (||r|| / ||b|| + u_double): x - x_true =
// A^-1 (b - A x) + A^-1 (b - A x_true), the second term from rounding b = A x_true to double.
inline void expect_solved(const SolveResult& result, System& system, Precision p, double tol, double kappa) {
  ASSERT_TRUE(result.converged()) << to_string(result.status) << ": " << result.message;
  const std::vector<double> x = system.x.to_host();
  const std::vector<double> b = system.b.to_host();
  const double true_residual = relative_residual(system.host, b, x);
  EXPECT_NEAR(result.true_relative_residual, true_residual, 1e-6 * true_residual + 1e-300);
  EXPECT_LE(true_residual, converged_residual_bound(system.host, b, x, p, tol));
  EXPECT_LE(relative_error(x, system.x_true), kappa * (true_residual + unit_roundoff(Precision::Double)));
}

}  // namespace clkr::test
