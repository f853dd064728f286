// Damped-Jacobi and Chebyshev relaxation, and the spectrum bounds they are built on.
#include "relaxation.hpp"

#include <algorithm>
#include <cmath>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"
#include "spectrum.hpp"

namespace clkr::detail {
namespace {

struct Bounds {
  double lower = 0, upper = 0;
};

// The bound on lambda_max(D^-1 A), and the smallest Ritz value when Lanczos ran (else 0).
Bounds spectrum_bounds(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, const SpectrumPolicy& policy) {
  Bounds b;
  if (policy.eigen_iterations > 0) {
    const SpectrumEstimate e = estimate_spectrum(blas, A, dinv, policy.eigen_iterations, policy.seed, "relaxation");
    b.upper = policy.upper_safety * e.lambda_max;
    // Gershgorin's bound holds for every eigenvalue: a safety factor past it only weakens the smoother.
    if (gershgorin > 0) b.upper = std::min(b.upper, gershgorin);
    b.lower = e.lambda_min;
  } else {
    b.upper = gershgorin;
  }
  if (!(b.upper > 0) || !std::isfinite(b.upper))
    throw Error("relaxation: the bound on lambda_max(D^-1 A) is " + format_number(b.upper) +
                ": the matrix (or its diagonal) is not positive definite");
  return b;
}

}  // namespace

void residual(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, bool x_is_zero) {
  blas.copy(b, r);
  if (!x_is_zero) blas.spmv(-1.0, A, x, 1.0, r);
}

// ---- damped Jacobi ---------------------------------------------------------------------------------

DampedJacobi::DampedJacobi(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, double weight, SpectrumPolicy policy)
    : blas_(blas), dinv_(dinv), given_weight_(weight), policy_(policy), r_(A.context(), A.rows(), "jacobi.r") {
  refresh(A, gershgorin);
}

void DampedJacobi::refresh(Matrix& A, double gershgorin) {
  if (given_weight_ > 0) {
    weight_ = given_weight_;
    // The bound is only reported then: Gershgorin's (no Lanczos steps spent on it).
    SpectrumPolicy cheap = policy_;
    cheap.eigen_iterations = 0;
    lambda_max_ = spectrum_bounds(blas_, A, gershgorin, dinv_, cheap).upper;
    return;
  }
  lambda_max_ = spectrum_bounds(blas_, A, gershgorin, dinv_, policy_).upper;
  weight_ = 4.0 / (3.0 * lambda_max_);
}

// Per sweep, n = rows: from zero x = w dinv b (3n); otherwise r = b - A x (a copy 2n and an SpMV) and
// x += w dinv r (4n).
void DampedJacobi::apply(Matrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps) {
  RelaxationKernels kernels(blas_);
  for (int s = 0; s < sweeps; ++s) {
    if (x_is_zero && s == 0) {
      kernels.scale_by_diagonal(weight_, dinv_, b, x);
      continue;
    }
    residual(blas_, A, b, x, r_, false);
    kernels.add_scaled_by_diagonal(weight_, dinv_, r_, x);
  }
}

std::string DampedJacobi::description() const { return "jacobi (w = " + format_number(weight_) + ")"; }

// ---- Chebyshev ------------------------------------------------------------------------------------

ChebyshevRelaxation::ChebyshevRelaxation(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, int degree,
                                         double lower_ratio, SpectrumPolicy policy)
    : blas_(blas),
      dinv_(dinv),
      degree_(degree),
      lower_ratio_(lower_ratio),
      policy_(policy),
      r_(A.context(), A.rows(), "chebyshev.r"),
      d_(A.context(), A.rows(), "chebyshev.d") {
  if (degree < 1) throw Error("chebyshev: the degree is " + std::to_string(degree) + "; it must be at least 1");
  if (lower_ratio <= 0 && policy.eigen_iterations <= 0)
    throw Error(
        "chebyshev: the lower end of the interval needs Lanczos steps (eigen_iterations > 0) or lower_ratio > 0");
  refresh(A, gershgorin);
}

void ChebyshevRelaxation::refresh(Matrix& A, double gershgorin) {
  const Bounds b = spectrum_bounds(blas_, A, gershgorin, dinv_, policy_);
  upper_ = b.upper;
  lower_ = lower_ratio_ > 0 ? lower_ratio_ * upper_ : b.lower;
  // A one-point spectrum (a diagonal matrix) or a Ritz value at the top: keep the interval open.
  lower_ = std::min(lower_, 0.99 * upper_);
  if (!(lower_ > 0)) lower_ = upper_ * 1e-3;
}

// Per sweep, n = rows: r = b - A x (a copy, and an SpMV unless x starts at zero), then `degree` steps
// of d = c1 d + c2 dinv r, x += d (6n each) with r -= A d between them (degree - 1 SpMVs).
void ChebyshevRelaxation::apply(Matrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps) {
  RelaxationKernels kernels(blas_);
  const double theta = 0.5 * (upper_ + lower_), delta = 0.5 * (upper_ - lower_);
  const double sigma = theta / delta;
  for (int s = 0; s < sweeps; ++s) {
    const bool zero = x_is_zero && s == 0;
    residual(blas_, A, b, x, r_, zero);
    double rho = 1.0 / sigma;
    for (int k = 0; k < degree_; ++k) {
      if (k == 0) {
        if (zero) {  // d = x = dinv r / theta
          kernels.scale_by_diagonal(1.0 / theta, dinv_, r_, d_);
          blas_.copy(d_, x);
        } else {
          kernels.chebyshev_first(1.0 / theta, dinv_, r_, d_, x);
        }
      } else {
        const double rho_next = 1.0 / (2.0 * sigma - rho);
        kernels.chebyshev_update(rho_next * rho, 2.0 * rho_next / delta, dinv_, r_, d_, x);
        rho = rho_next;
      }
      if (k + 1 < degree_) blas_.spmv(-1.0, A, d_, 1.0, r_);  // r -= A d
    }
  }
}

std::string ChebyshevRelaxation::description() const {
  return "chebyshev (degree " + std::to_string(degree_) + " on [" + format_number(lower_) + ", " +
         format_number(upper_) + "])";
}

}  // namespace clkr::detail
