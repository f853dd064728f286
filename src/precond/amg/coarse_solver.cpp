// Dense LDL^T / LU factorisations and the inverse from them, O(n^3) for the few hundred unknowns of the
// coarsest level (the inverse's rows or columns in parallel for the larger ones).
#include "coarse_solver.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../../runtime/format_number.hpp"
#include "../../runtime/host_threads.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {
namespace {

// The factorisations fork and join a parallel region per column: worth it only when a column's update
// is large. On a quiet machine a region costs microseconds, but when other threads hold the cores
// (PoCL's own, the simulator's, another build) each join waits for a descheduled thread: a 262-row
// coarsest level took 1.3-3.3 s with a region per column against 40 ms serial (bcsstk14, 2 cores,
// loaded). 2^18 multiply-adds (~0.1 ms) per region keeps the parallel gain for big levels only.
constexpr std::size_t kParallelWork = std::size_t{1} << 18;
// The inverse's rows (LDL^T) or columns (LU) cost ~n^2 each: in parallel from 2^24 multiply-adds in
// all (n ~ 256). A smaller inverse (the 120-160 rows of poisson3d:128/256's coarsest level, well under a
// millisecond on one core) would spend more on starting the workers and on ending them afterwards
// (release_host_threads) than its rows or columns take.
bool parallel_inverse(std::size_t n) { return n * n * n > 64 * kParallelWork; }

using Dense = std::vector<double>;  // row-major n x n

Dense to_dense(const HostCsrMatrix& A) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  Dense d(n * n, 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) d[i * n + A.col_indices[k]] += A.values[k];
  return d;
}

bool is_symmetric(const Dense& a, std::size_t n) {
  double scale = 0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::abs(a[i * n + j] - a[j * n + i]) > 1e-12 * scale) return false;
  return true;
}

HostCsrMatrix dense_csr(const Dense& x, std::int32_t n) {
  HostCsrMatrix M;
  M.rows = M.cols = n;
  M.row_offsets.resize(static_cast<std::size_t>(n) + 1);
  M.col_indices.resize(static_cast<std::size_t>(n) * n);
  for (std::int32_t i = 0; i <= n; ++i) M.row_offsets[i] = i * n;
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = 0; j < n; ++j) M.col_indices[static_cast<std::size_t>(i) * n + j] = j;
  M.values = x;
  return M;
}

// In place: a = L D L^T (unit L below the diagonal, D on it). False when A is indefinite: a pivot is
// clearly negative, or a pivot taken as zero has a clearly nonzero column below it (in a positive
// semidefinite Schur complement S, |s_ij|^2 <= s_ii s_jj <= max a_ii * tiny; [0 1; 1 0] has none
// negative). Pivots at or below `tiny` become zero (`dropped` counts them).
bool ldlt(Dense& a, std::size_t n, double tiny, std::int32_t& dropped) {
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, a[i * n + i]);
  const double zero_column = std::sqrt(tiny * largest);
  std::vector<double> ld(n);  // row j's l_jk d_k, k < j: each update below is a dot over contiguous rows
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < j; ++k) ld[k] = a[j * n + k] * a[k * n + k];
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * ld[k];
    if (d < -tiny) return false;
    if (d <= tiny) {
      d = 0;
      ++dropped;
    }
    a[j * n + j] = d;
    int indefinite = 0;
#pragma omp parallel for schedule(static) reduction(| : indefinite) if ((n - j) * j > kParallelWork)
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * ld[k];
      if (d == 0 && std::abs(s) > zero_column) indefinite = 1;
      a[i * n + j] = d != 0 ? s / d : 0.0;
    }
    if (indefinite) return false;
  }
  return true;
}

// X = L^-T D^+ L^-1 = W^T D^+ W with W = L^-1: W row by row (row i = e_i - sum over k < i of l_ik
// times row k), then X's lower triangle as the sum of W's rows' outer products, mirrored (so X is
// exactly symmetric). About n^3 / 3 multiply-adds, every inner loop along a row; solving for X's columns
// one by one took n^3, half of them down columns (a 343-row inverse 28 ms, 512 rows 190 ms, 2 cores).
Dense ldlt_inverse(const Dense& f, std::size_t n) {
  Dense w(n * n, 0.0);  // row i is nonzero in columns 0..i
  for (std::size_t i = 0; i < n; ++i) {
    double* wi = &w[i * n];
    wi[i] = 1;
    for (std::size_t k = 0; k < i; ++k) {
      const double l = f[i * n + k];
      if (l == 0) continue;
      const double* wk = &w[k * n];
      for (std::size_t c = 0; c <= k; ++c) wi[c] -= l * wk[c];
    }
  }
  Dense x(n * n, 0.0);
#pragma omp parallel for schedule(dynamic, 8) if (parallel_inverse(n))
  for (std::size_t a = 0; a < n; ++a) {  // x_ab, b <= a: the sum over i >= a of w_ia w_ib / d_i
    double* xa = &x[a * n];
    for (std::size_t i = a; i < n; ++i) {
      const double d = f[i * n + i], wia = w[i * n + a];
      if (d == 0 || wia == 0) continue;
      const double coefficient = wia / d;
      const double* wi = &w[i * n];
      for (std::size_t b = 0; b <= a; ++b) xa[b] += coefficient * wi[b];
    }
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < a; ++b) x[b * n + a] = x[a * n + b];
  return x;
}

// In place: P a = L U with partial pivoting (perm[i] = the original row now at i).
void lu(Dense& a, std::size_t n, std::vector<std::size_t>& perm, int level) {
  perm.resize(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  double scale = 0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  for (std::size_t j = 0; j < n; ++j) {
    std::size_t p = j;
    for (std::size_t i = j + 1; i < n; ++i)
      if (std::abs(a[i * n + j]) > std::abs(a[p * n + j])) p = i;
    if (!(std::abs(a[p * n + j]) > 1e-14 * scale * static_cast<double>(n)))
      throw Error("amg: the coarsest operator (level " + std::to_string(level) + ", " + std::to_string(n) +
                  " unknowns) is singular: pivot " + format_number(a[p * n + j]) + " in column " + std::to_string(j) +
                  " (is A singular?)");
    if (p != j) {
      for (std::size_t k = 0; k < n; ++k) std::swap(a[j * n + k], a[p * n + k]);
      std::swap(perm[j], perm[p]);
    }
#pragma omp parallel for schedule(static) if ((n - j) * (n - j) > kParallelWork)
    for (std::size_t i = j + 1; i < n; ++i) {
      const double l = a[i * n + j] / a[j * n + j];
      a[i * n + j] = l;
      for (std::size_t k = j + 1; k < n; ++k) a[i * n + k] -= l * a[j * n + k];
    }
  }
}

Dense lu_inverse(const Dense& f, std::size_t n, const std::vector<std::size_t>& perm) {
  Dense x(n * n, 0.0);
#pragma omp parallel for schedule(dynamic, 8) if (parallel_inverse(n))
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<double> y(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) y[i] = perm[i] == c ? 1.0 : 0.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < i; ++k) y[i] -= f[i * n + k] * y[k];
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t k = i + 1; k < n; ++k) y[i] -= f[i * n + k] * y[k];
      y[i] /= f[i * n + i];
    }
    for (std::size_t i = 0; i < n; ++i) x[i * n + c] = y[i];
  }
  return x;
}

DenseInverse factor_and_invert(const HostCsrMatrix& A, int level) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  for (double v : A.values)
    if (!std::isfinite(v))
      throw Error("amg: the coarsest operator (level " + std::to_string(level) + ") holds " + format_number(v));
  const Dense a = to_dense(A);
  DenseInverse result;
  if (is_symmetric(a, n)) {
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(a[i * n + i]));
    Dense f = a;
    std::int32_t dropped = 0;
    if (ldlt(f, n, 1e-12 * largest, dropped)) {
      result.inverse = dense_csr(ldlt_inverse(f, n), A.rows);
      result.dropped = dropped;
      result.symmetric = true;
      return result;
    }
  }
  Dense f = a;
  std::vector<std::size_t> perm;
  lu(f, n, perm, level);
  result.inverse = dense_csr(lu_inverse(f, n, perm), A.rows);
  return result;
}

}  // namespace

DenseInverse dense_inverse(const HostCsrMatrix& A, int level) {
  DenseInverse result = factor_and_invert(A, level);
  release_host_threads();  // the inverse goes to the device next, and the smoothers' setup waits for it
  return result;
}

}  // namespace clkr::detail::amg
