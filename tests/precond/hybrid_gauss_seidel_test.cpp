// detail::HybridGaussSeidel against a long double reference of the l1 hybrid (block) Gauss-Seidel
// sweep: forward and backward, from zero and from a given x, one range and several (more than there
// are nodes too), single unknowns and nodes of mixed sizes, awkward sizes; the iterates do not depend on
// the threads that run a sweep; the AMG V-cycle with it is symmetric, converges inside CG and follows
// an update; the device and bad diagonals are refused.
#include "precond/hybrid_gauss_seidel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "precond/amg/nodes.hpp"
#include "precond_test_support.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace clkr {
namespace {

using detail::HybridGaussSeidel;

std::vector<std::int32_t> single_rows(std::int32_t rows) {
  std::vector<std::int32_t> offsets(static_cast<std::size_t>(rows) + 1);
  for (std::int32_t i = 0; i <= rows; ++i) offsets[i] = i;
  return offsets;
}

// Solves the dense m x m system a y = r by Gaussian elimination with partial pivoting, in long double.
std::vector<long double> solve_dense(std::vector<long double> a, std::vector<long double> r) {
  const auto m = static_cast<int>(r.size());
  for (int c = 0; c < m; ++c) {
    int p = c;
    for (int i = c + 1; i < m; ++i)
      if (std::fabs(a[i * m + c]) > std::fabs(a[p * m + c])) p = i;
    for (int j = 0; j < m; ++j) std::swap(a[c * m + j], a[p * m + j]);
    std::swap(r[c], r[p]);
    for (int i = c + 1; i < m; ++i) {
      const long double f = a[i * m + c] / a[c * m + c];
      for (int j = c; j < m; ++j) a[i * m + j] -= f * a[c * m + j];
      r[i] -= f * r[c];
    }
  }
  for (int i = m - 1; i >= 0; --i) {
    for (int j = i + 1; j < m; ++j) r[i] -= a[i * m + j] * r[j];
    r[i] /= a[i * m + i];
  }
  return r;
}

// One sweep as the paper states it: nodes cut into `ranges` runs of (count * c / ranges) nodes; within a
// run each node solves (B + diag(l1)) dx = b - A x with the run's current x and the other runs' x from
// the sweep's start; l1 = the absolute values of a row's entries in other runs.
std::vector<long double> reference_sweep(const HostCsrMatrix& A, const std::vector<std::int32_t>& nodes, int ranges,
                                         const std::vector<double>& b, std::vector<long double> x, bool forward) {
  const std::int64_t count = static_cast<std::int64_t>(nodes.size()) - 1;
  const int r = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(ranges, count)));
  const std::vector<long double> start = x;
  for (int c = 0; c < r; ++c) {
    const auto first = static_cast<std::int32_t>(count * c / r), end = static_cast<std::int32_t>(count * (c + 1) / r);
    const std::int32_t lo = nodes[first], hi = nodes[end];
    for (std::int32_t step = 0; step < end - first; ++step) {
      const std::int32_t n = forward ? first + step : end - 1 - step;
      const std::int32_t s = nodes[n], m = nodes[n + 1] - s;
      std::vector<long double> block(static_cast<std::size_t>(m) * m, 0.0L), res(static_cast<std::size_t>(m));
      for (std::int32_t i = 0; i < m; ++i) {
        long double sum = b[s + i];
        for (std::int64_t k = A.row_offsets[s + i]; k < A.row_offsets[s + i + 1]; ++k) {
          const std::int32_t j = A.col_indices[k];
          const bool inside = j >= lo && j < hi;
          sum -= static_cast<long double>(A.values[k]) * (inside ? x[j] : start[j]);
          if (!inside) block[i * m + i] += std::fabs(static_cast<long double>(A.values[k]));
          if (j >= s && j < s + m) block[i * m + (j - s)] += A.values[k];
        }
        res[i] = sum;
      }
      const std::vector<long double> dx = solve_dense(block, res);
      for (std::int32_t i = 0; i < m; ++i) x[s + i] += dx[i];
    }
  }
  return x;
}

struct Problem {
  std::string name;
  HostCsrMatrix A;
  std::vector<std::int32_t> nodes;  // {0}: single unknowns
};

std::vector<Problem> problems() {
  std::vector<Problem> p;
  p.push_back({"one row", test::tridiagonal(1, 2.0, -1.0), {0}});
  p.push_back({"three rows", test::tridiagonal(3, 2.0, -1.0), {0}});
  p.push_back({"poisson3d:10 (1,000 rows)", poisson3d(10), {0}});
  p.push_back({"1023 rows", test::tridiagonal(1023, 2.5, -1.0), {0}});
  p.push_back({"1025 rows", test::tridiagonal(1025, 2.5, -1.0), {0}});
  const HostCsrMatrix vl = test::vector_laplacian2d(13);  // 338 rows, nodes of 1 to 6 unknowns
  p.push_back({"mixed nodes", vl, test::mixed_offsets(vl.rows)});
  const HostCsrMatrix el = load_matrix("elasticity3d:4");
  p.push_back({"elasticity3d:4, nodes of 3", el, detail::amg::NodeLayout::uniform(el.rows, 3).offsets});
  return p;
}

double max_relative_error(const std::vector<double>& got, const std::vector<long double>& want) {
  long double scale = 0, error = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::fabs(want[i]));
    error = std::max(error, std::fabs(got[i] - want[i]));
  }
  return static_cast<double>(error / std::max(scale, 1e-300L));
}

TEST(HybridGaussSeidel, SweepsMatchTheReference) {
  auto context = test::amg_context();
  Blas blas(context, Location::Host, Precision::Double);
  for (const Problem& p : problems()) {
    const std::vector<std::int32_t> nodes = p.nodes.size() > 1 ? p.nodes : single_rows(p.A.rows);
    const auto node_count = static_cast<int>(nodes.size()) - 1;
    for (int ranges : {1, 2, 3, 7, node_count + 5}) {
      const std::string what = p.name + ", " + std::to_string(ranges) + " ranges";
      HybridGaussSeidel gs(blas, p.A, p.nodes, ranges, 1);
      EXPECT_EQ(gs.ranges(), std::min(ranges, node_count)) << what;
      const std::vector<double> b = test::random_values(p.A.rows, 3), x0 = test::random_values(p.A.rows, 4);
      Vector bv(context, b, "b");

      // From zero, two sweeps forward (the second reads x), poisoned x ignored.
      Vector x(context, std::vector<double>(p.A.rows, std::nan("")), "x");
      gs.forward(p.A, bv, x, true, 2);
      std::vector<long double> want(p.A.rows, 0.0L);
      for (int s = 0; s < 2; ++s) want = reference_sweep(p.A, nodes, ranges, b, want, true);
      EXPECT_LT(max_relative_error(x.to_host(), want), 1e-13) << what << ", forward from zero";

      // From x0: forward, and backward.
      for (bool forward : {true, false}) {
        Vector xv(context, x0, "x");
        if (forward)
          gs.forward(p.A, bv, xv, false, 1);
        else
          gs.backward(p.A, bv, xv, 1);
        const std::vector<long double> ref = reference_sweep(p.A, nodes, ranges, b, test::to_long(x0), forward);
        EXPECT_LT(max_relative_error(xv.to_host(), ref), 1e-13) << what << (forward ? ", forward" : ", backward");
      }
    }
  }
}

// The cut is the construction's: one thread running every range gives the very bits two threads do.
TEST(HybridGaussSeidel, IteratesDoNotDependOnTheThreads) {
#ifndef _OPENMP
  GTEST_SKIP() << "built without OpenMP: one thread only";
#else
  auto context = test::amg_context();
  Blas blas(context, Location::Host, Precision::Double);
  const HostCsrMatrix A = poisson3d(12);
  HybridGaussSeidel gs(blas, A, {0}, 4, 0);
  const std::vector<double> b = test::random_values(A.rows, 7), x0 = test::random_values(A.rows, 8);
  auto run = [&](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    Vector bv(context, b, "b"), x(context, x0, "x");
    gs.forward(A, bv, x, false, 1);
    gs.backward(A, bv, x, 1);
    omp_set_num_threads(before);
    return x.to_host();
  };
  EXPECT_EQ(run(1), run(3));
#endif
}

AmgOptions gauss_seidel_options() {
  AmgOptions options;
  options.smoother = AmgSmoother::GaussSeidel;
  options.coarse_size = 40;
  return options;
}

// One range per thread on every level: fewer ranges than threads (a minimum of 64 k entries a range,
// tried) cut iterations but left cores idle during each sweep, 0-25% more time on 16 cores.
TEST(HybridGaussSeidel, EveryThreadKeepsARange) {
#ifdef _OPENMP
  auto context = test::amg_context();
  MatrixOptions keep;
  keep.keep_host_copy = true;
  Blas blas(context, Location::Host, Precision::Double);
  const int before = omp_get_max_threads();
  omp_set_num_threads(16);
  Matrix A(context, poisson3d(16), Format::Csr, keep);
  Amg M(blas, A, gauss_seidel_options());
  omp_set_num_threads(before);
  EXPECT_NE(M.description().find("(16 ranges,"), std::string::npos) << M.description();
#else
  GTEST_SKIP() << "built without OpenMP: one thread";
#endif
}

// Forward before, backward after: the V- and W-cycle are symmetric (PCG needs it), with nodes too.
TEST(HybridGaussSeidel, TheCycleIsSymmetric) {
  auto context = test::amg_context();
  for (const HostCsrMatrix& host : {poisson3d(12), test::grid_with_blocks(16, 3)}) {
    MatrixOptions keep;
    keep.keep_host_copy = true;
    Matrix A(context, host, Format::Csr, keep);
    Blas blas(context, Location::Host, Precision::Double);
    const std::vector<double> u = test::random_values(host.rows, 5), v = test::random_values(host.rows, 6);
    for (int cycle : {1, 2})
      for (int sweeps : {1, 2}) {
        AmgOptions options = gauss_seidel_options();
        options.block_size = 0;
        options.cycle_index = cycle;
        options.pre_sweeps = options.post_sweeps = sweeps;
        Amg M(blas, A, options);
        ASSERT_GE(M.levels().size(), 2u);
        EXPECT_LT(test::asymmetry(M, context, u, v), 1e-13)
            << host.rows << " rows, cycle index " << cycle << ", " << sweeps << " sweeps";
      }
  }
}

// AMG-PCG with Gauss-Seidel: mesh independent on poisson3d:16/32 (within 1.5x), far fewer iterations
// than Jacobi-PCG on an elasticity matrix with nodes, and an update after doubling the values gives
// the iterations of the setup (the l1 terms and blocks refreshed).
TEST(HybridGaussSeidel, AmgPcgConvergesAndFollowsAnUpdate) {
  auto context = test::amg_context();
  MatrixOptions keep;
  keep.keep_host_copy = true;
  Blas blas(context, Location::Host, Precision::Double);
  std::vector<int> poisson;
  for (int n : {16, 32}) {
    Matrix A(context, poisson3d(n), Format::Csr, keep);
    Amg M(blas, A, gauss_seidel_options());
    EXPECT_NE(M.description().find("gauss-seidel"), std::string::npos) << M.description();
    poisson.push_back(test::pcg_iterations_on_ones(blas, A, M));
  }
  EXPECT_LE(poisson[1], 1.5 * poisson[0]) << poisson[0] << " -> " << poisson[1];
  EXPECT_LE(poisson[1], 25);

  const HostCsrMatrix host = load_matrix("elasticity3d:12");
  Matrix A(context, host, Format::Csr, keep);
  AmgOptions options = gauss_seidel_options();
  options.block_size = 0;
  Amg M(blas, A, options);
  EXPECT_NE(M.description().find("node-block"), std::string::npos) << M.description();
  const int iterations = test::pcg_iterations_on_ones(blas, A, M);
  Jacobi J(blas, A);
  const int jacobi = test::pcg_iterations_on_ones(blas, A, J);
  EXPECT_LT(3 * iterations, jacobi) << iterations << " against Jacobi-PCG's " << jacobi;

  test::update_with_doubled_values(A, host, M);
  EXPECT_EQ(test::pcg_iterations_on_ones(blas, A, M), iterations);
}

TEST(HybridGaussSeidel, RefusesTheDeviceAndBadDiagonals) {
  auto context = test::amg_context();
  const HostCsrMatrix host = poisson3d(8);
  Matrix A(context, host, Format::Csr);
  Blas device(context, Location::Device, Precision::Single);
  try {
    Amg M(device, A, gauss_seidel_options());
    ADD_FAILURE() << "a device Blas took the gauss-seidel smoother";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("runs on the host backend only"), std::string::npos) << e.what();
  }

  Blas blas(context, Location::Host, Precision::Double);
  HostCsrMatrix bad = host;
  for (std::int64_t k = bad.row_offsets[17]; k < bad.row_offsets[18]; ++k)
    if (bad.col_indices[k] == 17) bad.values[k] = -1;
  try {
    HybridGaussSeidel gs(blas, bad, {0}, 2, 3);
    ADD_FAILURE() << "a negative diagonal entry was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(level 3): the diagonal block of node 17 (rows 17..17)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace clkr
