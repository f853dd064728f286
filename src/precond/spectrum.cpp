// Spectrum bounds of D^-1 A: CG-Lanczos Ritz values on the device (or host backend), Gershgorin on the
// host, and the tridiagonal eigenvalue bisection.
#include "spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../runtime/format_number.hpp"
#include "../runtime/large_vectors.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
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

double gershgorin_bound(const HostCsrMatrix& A) {
  double bound = 0;
#pragma omp parallel for reduction(max : bound) schedule(static)
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double diagonal = 0, sum = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += std::abs(A.values[k]);
      if (A.col_indices[k] == i) diagonal = std::abs(A.values[k]);
    }
    if (diagonal > 0) bound = std::max(bound, sum / diagonal);
  }
  return bound;
}

double gershgorin_bound(Matrix& A) {
  Context& context = *A.context();
  if (!context.info().fp64) return gershgorin_bound(A.host_csr());
  // The kernel reads CSR-like and ELL parts; SELL's slices (a layout of its own) are summed on the host.
  if (A.format() == Format::Sell) return gershgorin_bound(A.host_csr());
  const std::size_t local = 256;
  if (context.info().max_work_group_size < local) return gershgorin_bound(A.host_csr());
  const std::size_t rows = static_cast<std::size_t>(A.rows());
  if (rows == 0) return 0;
  const std::size_t groups =
      std::min<std::size_t>(std::max<std::size_t>(context.info().compute_units, 1) * 8, (rows + local - 1) / local);
  cl::Kernel kernel = context.kernel("precond/gershgorin.cl", "gershgorin_partial_max",
                                     precision_build_option(Precision::Double) + " -DWG=" + std::to_string(local));
  const bool ell = A.format() == Format::Ell || A.format() == Format::Hyb;
  const bool csr = A.format() != Format::Ell;
  cl::Buffer partial = context.allocate(groups * sizeof(double), "gershgorin partial maxima");
  KernelArgs args(kernel, Precision::Double);
  args.value(static_cast<cl_int>(rows));
  if (ell) {
    args.value(static_cast<cl_int>(A.ell_part().width))
        .value(static_cast<cl_int>(A.ell_part().pitch))
        .value(A.ell_part().col_indices)
        .value(A.ell_values(Precision::Double).primary);
  } else {
    args.value(cl_int{0}).value(cl_int{0}).value(cl::Buffer()).value(cl::Buffer());
  }
  if (csr) {
    args.value(A.csr_part().row_offsets).value(A.csr_part().col_indices).value(A.csr_values(Precision::Double).primary);
  } else {
    args.value(cl::Buffer()).value(cl::Buffer()).value(cl::Buffer());
  }
  args.value(partial);
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local));
  std::vector<double> maxima(groups);
  context.queue().enqueueReadBuffer(partial, CL_TRUE, 0, groups * sizeof(double), maxima.data());
  return *std::max_element(maxima.begin(), maxima.end());
}

SpectrumEstimate estimate_spectrum(Blas& blas, Matrix& A, Vector& dinv, int steps, std::uint64_t seed,
                                   const char* who) {
  const std::size_t n = static_cast<std::size_t>(A.rows());
  SpectrumEstimate estimate;
  if (n == 0 || steps <= 0) return estimate;
  // Element i of the start vector is a hash of (seed, i) (SplitMix64's finalizer), uniform in [-0.5, 0.5):
  // filled in parallel and the same whatever the thread count. A sequential generator took 50 ms of
  // every AMG update on 16.8 M rows.
  std::vector<double> start = large_vector<double>(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    start[i] = static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
  }
  const auto& context = A.context();
  Vector r(context, start, "lanczos.r"), z(context, n, "lanczos.z"), p(context, n, "lanczos.p"),
      q(context, n, "lanczos.q");
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
  return estimate;
}

}  // namespace clkr::detail
