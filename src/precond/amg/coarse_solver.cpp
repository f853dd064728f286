// Dense LDL^T / LU factorisations and the inverse from them, O(n^3) for the few hundred unknowns of the
// coarsest level (the rows below a panel of LDL^T, and the inverse's rows or columns, in parallel for
// the larger ones).
#include "coarse_solver.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../../runtime/format_number.hpp"
#include "../../runtime/host_threads.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {
namespace {

// The factorisations fork and join a parallel region per column (LU) or per panel of columns
// (LDL^T): worth it only when that step's update is large. On a quiet machine a region costs
// microseconds, but when other threads hold the cores (PoCL's own, the simulator's, another build)
// each join waits for a descheduled thread: a 262-row coarsest level took 1.3-3.3 s with a region per
// column against 40 ms serial (bcsstk14, 2 cores, loaded). 2^18 multiply-adds (~0.1 ms) per region
// keeps the parallel gain for big levels only.
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

// sum x_k y_k with eight running sums in a fixed order: the compiler keeps them in vector registers
// without reassociating (no fast-math), 2-3x a single running sum's latency-bound loop.
double dot(const double* x, const double* y, std::size_t n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8)
    for (std::size_t q = 0; q < 8; ++q) s[q] += x[k + q] * y[k + q];
  double tail = 0;
  for (; k < n; ++k) tail += x[k] * y[k];
  return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])) + tail;
}

// Columns factored together: the rows below a panel are finished in one parallel loop, so a
// factorisation forks n / kPanel times instead of once per column (see kParallelWork).
constexpr std::size_t kPanel = 32;

// In place: a = L D L^T (unit L below the diagonal, D on it), left-looking: l_ij = (a_ij - sum over
// k < j of l_ik d_k l_jk) / d_j, a dot product along row i. A panel's own rows go first, one by one
// (each needs the pivots before it); the rows below it then depend only on the panel's rows and run in
// parallel. False when A is indefinite: a pivot is clearly negative, or a pivot taken as zero has a
// clearly nonzero column below it (in a positive semidefinite Schur complement S, |s_ij|^2 <= s_ii
// s_jj <= max a_ii * tiny; [0 1; 1 0] has none negative). Pivots at or below `tiny` become zero
// (`dropped` counts them).
bool ldlt(Dense& a, std::size_t n, double tiny, std::int32_t& dropped) {
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, a[i * n + i]);
  const double zero_column = std::sqrt(tiny * largest);
  Dense ld(kPanel * n);  // for each panel row j: l_jk d_k, k < j
  // l_ij from the finished l_ik, k < j; flags a zero pivot with a nonzero column
  auto entry = [&](std::size_t i, std::size_t j, std::size_t j0, int& indefinite) {
    const double s = a[i * n + j] - dot(&a[i * n], &ld[(j - j0) * n], j);
    const double d = a[j * n + j];
    if (d == 0 && std::abs(s) > zero_column) indefinite = 1;
    a[i * n + j] = d != 0 ? s / d : 0.0;
  };
  for (std::size_t j0 = 0; j0 < n; j0 += kPanel) {
    const std::size_t j1 = std::min(n, j0 + kPanel);
    int indefinite = 0;
    for (std::size_t j = j0; j < j1; ++j) {
      for (std::size_t k = j0; k < j; ++k) entry(j, k, j0, indefinite);
      double* ldj = &ld[(j - j0) * n];
      for (std::size_t k = 0; k < j; ++k) ldj[k] = a[j * n + k] * a[k * n + k];
      double d = a[j * n + j] - dot(&a[j * n], ldj, j);
      if (d < -tiny) return false;
      if (d <= tiny) {
        d = 0;
        ++dropped;
      }
      a[j * n + j] = d;
    }
#pragma omp parallel for schedule(static) reduction(| : indefinite) if ((n - j1) * (j1 - j0) * j1 > kParallelWork)
    for (std::size_t i = j1; i < n; ++i)
      for (std::size_t j = j0; j < j1; ++j) entry(i, j, j0, indefinite);
    if (indefinite) return false;
  }
  return true;
}

// X = L^-T D^+ L^-1 = W^T D^+ W with W = L^-1, both steps as dot products over independent rows:
// W by columns (column c solves L w = e_c: w_ic = -sum over c <= k < i of l_ik w_kc, stored as row c
// of `wt`), then X's lower triangle x_ab = sum over i >= a of w_ia (w_ib / d_i), mirrored (so X is
// exactly symmetric). About n^3 / 3 multiply-adds, every inner loop along a row, both in parallel.
Dense ldlt_inverse(const Dense& f, std::size_t n) {
  Dense wt(n * n, 0.0), scaled(n * n, 0.0);  // row c: column c of W, and of D^+ W; nonzero from c on
#pragma omp parallel for schedule(dynamic, 4) if (parallel_inverse(n))
  for (std::size_t c = 0; c < n; ++c) {
    double* w = &wt[c * n];
    double* s = &scaled[c * n];
    w[c] = 1;
    for (std::size_t i = c + 1; i < n; ++i) w[i] = -dot(&f[i * n + c], &w[c], i - c);
    for (std::size_t i = c; i < n; ++i) s[i] = f[i * n + i] != 0 ? w[i] / f[i * n + i] : 0.0;
  }
  Dense x(n * n, 0.0);
#pragma omp parallel for schedule(dynamic, 4) if (parallel_inverse(n))
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b <= a; ++b) x[a * n + b] = dot(&wt[a * n + a], &scaled[b * n + a], n - a);
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
