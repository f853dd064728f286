// Spectrum bounds of D^-1 A: CG-Lanczos Ritz values on the device (or host backend), Gershgorin on the
// host, and the tridiagonal eigenvalue bisection.
#include "spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"
#include "diagonal_scan.hpp"
#include "lanczos_start.hpp"
#include "relaxation_kernels.hpp"

namespace clkr::detail {
namespace {

// How many eigenvalues of the tridiagonal (a, b) lie below x (the sign changes of its Sturm sequence).
int eigenvalues_below(const std::vector<double>& a, const std::vector<double>& b, double x) {
  int count = 0;
  double q = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double off = i > 0 ? b[i - 1] * b[i - 1] : 0.0;
    q = a[i] - x - (i > 0 ? off / q : 0.0);
    if (q == 0) q = -std::numeric_limits<double>::min();  // a zero pivot counts as negative
    if (q < 0) ++count;
  }
  return count;
}

// The k-th smallest eigenvalue (0-based) within [lo, hi].
double kth_eigenvalue(const std::vector<double>& a, const std::vector<double>& b, int k, double lo, double hi) {
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi || hi - lo <= 1e-13 * std::max(std::abs(lo), std::abs(hi))) break;
    if (eigenvalues_below(a, b, mid) > k)
      hi = mid;
    else
      lo = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::pair<double, double> tridiagonal_extremes(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty()) return {0.0, 0.0};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double radius = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < a.size() ? std::abs(b[i]) : 0.0);
    lo = std::min(lo, a[i] - radius);
    hi = std::max(hi, a[i] + radius);
  }
  const double pad = 1e-12 * std::max(std::abs(lo), std::abs(hi)) + std::numeric_limits<double>::min();
  lo -= pad;
  hi += pad;
  const int n = static_cast<int>(a.size());
  return {kth_eigenvalue(a, b, 0, lo, hi), kth_eigenvalue(a, b, n - 1, lo, hi)};
}

double gershgorin_bound(const HostCsrMatrix& A) { return scan_diagonal(A, nullptr).gershgorin; }

double gershgorin_bound(Matrix& A) { return scan_diagonal(A, nullptr, Location::Device).gershgorin; }

SpectrumEstimate estimate_spectrum(Blas& blas, Matrix& A, Vector& dinv, int steps, std::uint64_t seed,
                                   const char* who) {
  const std::size_t n = static_cast<std::size_t>(A.rows());
  SpectrumEstimate estimate;
  if (n == 0 || steps <= 0) return estimate;
  const auto& context = A.context();
  Vector r = lanczos_start_vector(blas, context, n, seed);
  Vector z(context, n, "lanczos.z"), p(context, n, "lanczos.p"), q(context, n, "lanczos.q");
  RelaxationKernels kernels(blas);
  auto check = [&](const char* name, double value, int step) {
    if (value > 0 && std::isfinite(value)) return;
    throw Error(std::string(who) + ": the spectrum estimate met " + name + " = " + format_number(value) +
                " at Lanczos step " + std::to_string(step) + ": the matrix (or its diagonal) is not positive definite");
  };

  kernels.scale_by_diagonal(1.0, dinv, r, z);  // z = D^-1 r
  blas.copy(z, p);
  double rz = blas.dot(r, z);
  check("r'D^-1 r", rz, 0);
  const double rz_start = rz;
  std::vector<double> alpha, beta;
  for (int j = 0; j < steps; ++j) {
    blas.spmv(1.0, A, p, 0.0, q);
    const double pq = blas.dot(p, q);
    check("p'Ap", pq, j);
    alpha.push_back(rz / pq);
    blas.axpy(-alpha.back(), q, r);
    kernels.scale_by_diagonal(1.0, dinv, r, z);
    const double rz_next = blas.dot(r, z);
    // r'D^-1 r below zero by more than rounding of a vanishing residual: D is not positive definite.
    if (!std::isfinite(rz_next) || rz_next < -1e-28 * rz_start) check("r'D^-1 r", rz_next, j + 1);
    // The Krylov space is exhausted (n <= steps, or an invariant subspace): T is complete.
    if (rz_next <= 1e-28 * rz_start) break;
    beta.push_back(rz_next / rz);
    rz = rz_next;
    blas.aypx(beta.back(), z, p);  // p = z + beta p
  }
  const std::size_t k = alpha.size();
  std::vector<double> diagonal(k), off(k > 0 ? k - 1 : 0);
  for (std::size_t j = 0; j < k; ++j) {
    diagonal[j] = 1.0 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0.0);
    if (j + 1 < k) off[j] = std::sqrt(beta[j]) / alpha[j];
  }
  const auto [lo, hi] = tridiagonal_extremes(diagonal, off);
  estimate.lambda_min = lo;
  estimate.lambda_max = hi;
  estimate.steps = static_cast<int>(k);
  estimate.diagonal = std::move(diagonal);
  estimate.off = std::move(off);
  return estimate;
}

double SpectrumEstimate::lambda_max_after(int k) const {
  if (k >= steps) return lambda_max;
  if (k <= 0) return 0;
  const std::vector<double> a(diagonal.begin(), diagonal.begin() + k), b(off.begin(), off.begin() + (k - 1));
  return tridiagonal_extremes(a, b).second;
}

}  // namespace clkr::detail
