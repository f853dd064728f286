// Shared by the AMG tests: the test context, dense long-double matrix algebra for independent
// references, and model problems (Poisson, a jumping coefficient, a vector Laplacian with blocks).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/solver/cg.hpp"

namespace clkr::test {

// PCG with M on b = ones from x = 0 to a relative residual of 1e-8 (at most 5000 iterations): its
// iterations, and a failure where it does not converge.
inline int pcg_iterations_on_ones(Blas& blas, Matrix& A, Preconditioner& M) {
  Vector b(A.context(), std::vector<double>(A.rows(), 1.0), "b"), x(A.context(), A.rows(), "x");
  SolveOptions options;
  options.relative_tolerance = 1e-8;
  options.max_iterations = 5000;
  const SolveResult r = cg(blas, A, M, b, x, options);
  EXPECT_TRUE(r.converged()) << r.message;
  return r.iterations;
}

// A time step that doubles every value: A takes 2 * host.values (host: A's entries) and M follows
// (Preconditioner::update). The update tests then expect the iterations of before.
inline void update_with_doubled_values(Matrix& A, const HostCsrMatrix& host, Preconditioner& M) {
  std::vector<double> doubled = host.values;
  for (double& v : doubled) v *= 2;
  A.update_values(doubled);
  M.update(A);
}

// |u' M v - v' M u| / sum |u_i (M v)_i| for one application of M to each of u and v (PCG needs M
// symmetric: a few unit roundoffs).
inline double asymmetry(Preconditioner& M, const std::shared_ptr<Context>& context, const std::vector<double>& u,
                        const std::vector<double>& v) {
  Vector uv(context, u, "u"), vv(context, v, "v"), mu(context, u.size(), "Mu"), mv(context, v.size(), "Mv");
  M.apply(uv, mu);
  M.apply(vv, mv);
  const std::vector<double> Mu = mu.to_host(), Mv = mv.to_host();
  long double uMv = 0, vMu = 0, scale = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    uMv += static_cast<long double>(u[i]) * Mv[i];
    vMu += static_cast<long double>(v[i]) * Mu[i];
    scale += std::fabs(static_cast<long double>(u[i]) * Mv[i]);
  }
  return static_cast<double>(std::fabs(uMv - vMu) / scale);
}

inline std::shared_ptr<Context> amg_context() {
  static std::shared_ptr<Context> shared = Context::create();
  return shared;
}

// The grid-barrier spin limit of the tests that run the AMG cycle in one launch and check its values:
// a wait of seconds on PoCL, as the persistent CG's tests use (tests/solver/persistent_cg_support.hpp),
// so that a PoCL worker thread kept off a core by a loaded CI machine does not abort the launch. The
// CPU default (2^28 polls, under a second) aborted one such launch in an ASan CI run on 2 cores,
// 2026-12-08 (AmgCoarseCycle, NaN where the launch gave up). Aborts are AmgCoarseCycleAbort's to test.
constexpr std::size_t kPatientSpins = std::size_t{1} << 30;

// A dense matrix in long double, row-major.
struct Dense {
  std::int32_t rows = 0, cols = 0;
  std::vector<long double> a;
  Dense(std::int32_t r, std::int32_t c) : rows(r), cols(c), a(static_cast<std::size_t>(r) * c, 0.0L) {}
  long double& operator()(std::int32_t i, std::int32_t j) { return a[static_cast<std::size_t>(i) * cols + j]; }
  long double operator()(std::int32_t i, std::int32_t j) const { return a[static_cast<std::size_t>(i) * cols + j]; }
};

inline Dense dense(const HostCsrMatrix& A) {
  Dense d(A.rows, A.cols);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) d(i, A.col_indices[k]) += A.values[k];
  return d;
}

inline Dense multiply(const Dense& A, const Dense& B) {
  Dense C(A.rows, B.cols);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = 0; k < A.cols; ++k) {
      const long double a = A(i, k);
      if (a == 0) continue;
      for (std::int32_t j = 0; j < B.cols; ++j) C(i, j) += a * B(k, j);
    }
  return C;
}

inline Dense transposed(const Dense& A) {
  Dense T(A.cols, A.rows);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t j = 0; j < A.cols; ++j) T(j, i) = A(i, j);
  return T;
}

// max |A - B| / max |B|.
inline double relative_difference(const Dense& A, const Dense& B) {
  long double diff = 0, scale = 0;
  for (std::size_t k = 0; k < A.a.size(); ++k) {
    diff = std::max(diff, std::abs(A.a[k] - B.a[k]));
    scale = std::max(scale, std::abs(B.a[k]));
  }
  return static_cast<double>(scale > 0 ? diff / scale : diff);
}

// y = A x in long double.
inline std::vector<long double> multiply(const HostCsrMatrix& A, const std::vector<long double>& x) {
  std::vector<long double> y(static_cast<std::size_t>(A.rows), 0.0L);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      y[i] += static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
  return y;
}

inline std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& e : v) e = uniform(engine);
  return v;
}

// -div(k grad u) on an n^3 grid (7-point, Dirichlet), with k = 1 outside and `jump` inside the central
// cube of half the side: SPD, a positive diagonal, strong anisotropy across the interface.
inline HostCsrMatrix jumping_coefficient3d(int n, double jump) {
  auto k = [&](int x, int y, int z) {
    auto inside = [&](int c) { return c >= n / 4 && c < n - n / 4; };
    return inside(x) && inside(y) && inside(z) ? jump : 1.0;
  };
  HostCsrMatrix A;
  A.rows = A.cols = n * n * n;
  A.symmetric = true;
  auto id = [&](int x, int y, int z) { return (z * n + y) * n + x; };
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const int c[3] = {x, y, z};
        double diagonal = 0;
        std::vector<std::pair<std::int32_t, double>> row;
        for (int d = 2; d >= 0; --d)
          for (int s : {-1, 1}) {
            int o[3] = {x, y, z};
            o[d] += s;
            // The face coefficient: the harmonic mean of the two cells (1 cell outside the grid: own).
            const bool outside = o[d] < 0 || o[d] >= n;
            const double kc = k(c[0], c[1], c[2]);
            const double ko = outside ? kc : k(o[0], o[1], o[2]);
            const double face = 2 * kc * ko / (kc + ko);
            diagonal += face;
            if (!outside) row.emplace_back(id(o[0], o[1], o[2]), -face);
          }
        row.emplace_back(id(x, y, z), diagonal);
        std::sort(row.begin(), row.end());
        for (const auto& [col, v] : row) {
          A.col_indices.push_back(col);
          A.values.push_back(v);
        }
        A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
      }
  A.validate();
  return A;
}

// The 2D vector Laplacian with two unknowns per grid point coupled through the diagonal block
// [[4.5, 0.5], [0.5, 4.5]]: blocks of size 2, SPD.
inline HostCsrMatrix vector_laplacian2d(int n) {
  const HostCsrMatrix S = poisson2d(n);
  HostCsrMatrix A;
  A.rows = A.cols = 2 * S.rows;
  A.symmetric = true;
  for (std::int32_t i = 0; i < S.rows; ++i)
    for (int c = 0; c < 2; ++c) {
      for (std::int32_t k = S.row_offsets[i]; k < S.row_offsets[i + 1]; ++k) {
        const std::int32_t j = S.col_indices[k];
        if (j == i) {
          A.col_indices.push_back(2 * j);
          A.values.push_back(c == 0 ? S.values[k] + 0.5 : 0.5);
          A.col_indices.push_back(2 * j + 1);
          A.values.push_back(c == 1 ? S.values[k] + 0.5 : 0.5);
        } else {
          A.col_indices.push_back(2 * j + c);
          A.values.push_back(S.values[k]);
        }
      }
      A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
    }
  A.validate();
  return A;
}

// A random rows x cols matrix: up to `per_row` entries a row, every 7th row empty, every 5th column
// empty, one value in ten an explicit zero; values in [-1, 1]. With long_row > 0 also row 1 (when
// there is one) long, `long_row` draws of a column, and column 0 in every third row (a long column: a
// long row of the transpose).
inline HostCsrMatrix random_sparse(std::int32_t rows, std::int32_t cols, int per_row, unsigned seed, int long_row = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    std::set<std::int32_t> columns;
    if (i % 7 != 3 && cols > 0) {
      const int count = long_row > 0 && i == 1 ? long_row : static_cast<int>(rng() % (per_row + 1));
      for (int c = 0; c < count; ++c) {
        const auto j = static_cast<std::int32_t>(rng() % cols);
        if (j % 5 != 2) columns.insert(j);
      }
      if (long_row > 0 && i % 3 == 0) columns.insert(0);
    }
    for (std::int32_t j : columns) {
      A.col_indices.push_back(j);
      A.values.push_back(rng() % 10 == 0 ? 0.0 : u(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// poisson2d(n) with every connection weakened to -1e-6: nothing strong to aggregate.
inline HostCsrMatrix weakly_connected_poisson2d(int n) {
  HostCsrMatrix A = poisson2d(n);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] != i) A.values[k] = -1e-6;
  return A;
}

// c (20 I + ones) with c = 5e306, 20 x 20: every connection strong for eps = 0.01, one aggregate of all
// 20 unknowns, whose coarse entry sums 800 c / 20 = 2e308 and overflows.
inline HostCsrMatrix overflowing_galerkin_matrix() {
  HostCsrMatrix A;
  A.rows = A.cols = 20;
  for (std::int32_t i = 0; i < 20; ++i) {
    for (std::int32_t j = 0; j < 20; ++j) {
      A.col_indices.push_back(j);
      A.values.push_back(5e306 * (i == j ? 21.0 : 1.0));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  return A;
}

// Nodes of 1-6 unknowns in turn over `rows` rows (the last one shorter where they do not fit).
inline std::vector<std::int32_t> mixed_offsets(std::int32_t rows) {
  std::vector<std::int32_t> offsets{0};
  for (int size = 1; offsets.back() < rows; size = size % 6 + 1)
    offsets.push_back(std::min(rows, offsets.back() + size));
  return offsets;
}

// vector_laplacian2d with node `node`'s two unknowns coupled by `coupling` (0.5 there; above the
// diagonal's 4.5 the block is indefinite while every diagonal entry stays positive).
inline HostCsrMatrix with_coupling(int n, std::int32_t node, double coupling) {
  HostCsrMatrix A = vector_laplacian2d(n);
  for (const std::int32_t row : {2 * node, 2 * node + 1})
    for (std::int64_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k)
      if (A.col_indices[k] == (row ^ 1)) A.values[k] = coupling;
  return A;
}

// b unknowns on every node of a 2D grid (n x n), all unknowns of neighbouring nodes coupled except
// the pairs (c, d) with c + d == b - 1 off the node (structural zeros, as shell elements leave some
// rotation-translation couplings out); SPD by diagonal dominance.
inline HostCsrMatrix grid_with_blocks(int n, int b) {
  const HostCsrMatrix S = poisson2d(n);
  HostCsrMatrix A;
  A.rows = A.cols = S.rows * b;
  for (std::int32_t i = 0; i < S.rows; ++i)
    for (int c = 0; c < b; ++c) {
      for (std::int32_t k = S.row_offsets[i]; k < S.row_offsets[i + 1]; ++k) {
        const std::int32_t j = S.col_indices[k];
        for (int d = 0; d < b; ++d) {
          if (j != i && c + d == b - 1 && c != d) continue;
          A.col_indices.push_back(j * b + d);
          A.values.push_back(j == i ? (c == d ? 4.0 * (1 + 0.2 * b) + 1 : 0.1) : (c == d ? -1.0 : -0.2));
        }
      }
      A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
    }
  A.validate();
  return A;
}

}  // namespace clkr::test
