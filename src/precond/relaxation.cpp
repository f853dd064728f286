// Damped-Jacobi and Chebyshev relaxation, and the spectrum bounds they are built on.
#include "relaxation.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"
#include "spectrum.hpp"

namespace clkr::detail {
namespace {

void check_upper(double upper) {
  if (!(upper > 0) || !std::isfinite(upper))
    throw Error("relaxation: the bound on lambda_max(D^-1 A) is " + format_number(upper) +
                ": the matrix (or its diagonal) is not positive definite");
}

int refresh_steps(const SpectrumPolicy& policy) {
  return policy.refresh_eigen_iterations < 0 ? policy.eigen_iterations : policy.refresh_eigen_iterations;
}

// The setup's bounds: eigen_iterations Lanczos steps (safety x the largest Ritz value, never above
// Gershgorin's bound, which holds for every eigenvalue: a safety factor past it only weakens the
// smoother), or Gershgorin's bound alone.
SpectrumBounds setup_bounds(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, Matrix* blocks,
                            const SpectrumPolicy& policy) {
  SpectrumBounds b;
  if (policy.eigen_iterations > 0) {
    const SpectrumEstimate e =
        estimate_spectrum(blas, A, dinv, policy.eigen_iterations, policy.seed, "relaxation", blocks);
    b.estimate = policy.upper_safety * e.lambda_max;
    b.upper = gershgorin > 0 ? std::min(b.estimate, gershgorin) : b.estimate;
    b.lower = b.lambda_min = e.lambda_min;
    b.short_ritz = e.lambda_max_after(refresh_steps(policy));
  } else {
    b.upper = gershgorin;
  }
  check_upper(b.upper);
  return b;
}

// Whether a refresh runs Lanczos steps: the policy asks for some and the setup's run recorded its short
// Ritz value; otherwise the bound is Gershgorin's alone.
bool refresh_runs_lanczos(const SpectrumPolicy& policy, const SpectrumBounds& setup) {
  return refresh_steps(policy) > 0 && setup.short_ritz > 0;
}

// The bounds after new values. The setup's run ended with the largest Ritz value theta_n (n =
// eigen_iterations steps) and had theta_k after k = refresh_eigen_iterations steps; k steps from the
// same start vector on the new values give theta_k', and the bound is the setup's estimate times
// theta_k' / theta_k, clipped by the new Gershgorin bound. k = n is a fresh estimate; k < n saves
// n - k Lanczos steps (an SpMV, two dots and two updates each) per level, and assumes that the short run's Ritz value
// stays as far below theta_n (relatively) after the change as it was at setup. That is exact when the
// values are scaled (D^-1 A does not change); after large changes the short run can converge more
// slowly than the setup's did. tests/precond/amg_update_spectrum_test.cpp measures five such changes
// (a coefficient jump of 1e4 or 1e-4 appearing, rows and columns scaled by 0.1-10, the diagonal
// x 1.5, a 21x heavier diagonal) against lambda_max on every level: with k = 4 the ratio fell short
// of a fresh estimate by up to 3% (a jump of 1e-4 on the finest level), and a bound 3% below
// lambda_max left the top of the spectrum almost undamped (|p(lambda)| 0.94 for Chebyshev(3) against
// 0.6 at the bound; 16 iterations instead of 12). Hence a margin on top of the setup's 10%: as large
// as the relative change of the short run's Ritz value, at most short_refresh_margin (5%): none when
// the values were only scaled, the full margin after a change as large as those (a bound that is too
// high costs much less than one that is too low). `e` is the short run (empty when none ran).
SpectrumBounds refreshed_bounds(const SpectrumEstimate& e, bool ran, double gershgorin, const SpectrumPolicy& policy,
                                const SpectrumBounds& setup) {
  SpectrumBounds b = setup;
  if (ran) {
    if (refresh_steps(policy) >= policy.eigen_iterations) {  // as long as the setup's run: a fresh estimate
      b.estimate = policy.upper_safety * e.lambda_max;
      b.lower = e.lambda_min;
    } else {
      const double scale = e.lambda_max / setup.short_ritz;
      const double margin = std::min(policy.short_refresh_margin, std::abs(scale - 1));
      b.estimate = (1 + margin) * setup.estimate * scale;
      b.lower = setup.lambda_min * scale;
    }
    b.upper = gershgorin > 0 ? std::min(b.estimate, gershgorin) : b.estimate;
  } else {
    b.upper = gershgorin;
    b.lower = 0;
  }
  check_upper(b.upper);
  return b;
}

}  // namespace

void residual(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, bool x_is_zero) {
  if (x_is_zero) {
    blas.copy(b, r);
  } else {
    RelaxationKernels(blas).residual(A, b, x, r);
  }
}

// ---- the sweeps, shared ---------------------------------------------------------------------------

void Relaxation::apply(Matrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps) {
  if (blocks_) {
    apply_with_blocks(A, b, x, x_is_zero, sweeps);
    return;
  }
  RelaxationKernels kernels(blas_);
  auto v = [&](RelaxRole role) -> Vector& { return role == RelaxRole::B ? b : role == RelaxRole::X ? x : work(role); };
  // A Chebyshev sweep's first correction d is left out of x when an SpMV step follows, whose kernel
  // adds it with its own (Pending): from zero, d = c dinv b alone (x not written), then x = d + d';
  // from a nonzero x, d comes out of the residual's SpMV (no elementwise pass), then x += d + d'.
  // Per sweep that saves reading and writing x once, and from a nonzero x the pass over r, dinv, d and
  // x (3 vectors of A's rows fewer to move, and a launch).
  const bool fuse = blas_.location() == Location::Host || spmv_epilogue_supported(A);
  const std::vector<RelaxStep> steps = schedule(x_is_zero, sweeps);
  auto next_is_spmv_step = [&](std::size_t i) {
    return fuse && i + 1 < steps.size() && steps[i + 1].kind == RelaxStep::Kind::ChebyshevSpmvStep;
  };
  SpmvEpilogue::Pending pending = SpmvEpilogue::Pending::None;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const RelaxStep& s = steps[i];
    if (s.kind == RelaxStep::Kind::ChebyshevStart && next_is_spmv_step(i)) {
      kernels.scale_by_diagonal(s.c2, dinv_, v(s.in), v(s.d));
      pending = SpmvEpilogue::Pending::Set;
      continue;
    }
    if (s.kind == RelaxStep::Kind::Residual && i + 1 < steps.size() &&
        steps[i + 1].kind == RelaxStep::Kind::ChebyshevFirst && steps[i + 1].in == RelaxRole::R &&
        next_is_spmv_step(i + 1)) {
      kernels.residual_and_correction(A, b, x, work(RelaxRole::R), steps[i + 1].c2, dinv_, v(steps[i + 1].d));
      pending = SpmvEpilogue::Pending::Add;
      ++i;  // the ChebyshevFirst step is done
      continue;
    }
    switch (s.kind) {
      case RelaxStep::Kind::ScaleByDiagonal:
        kernels.scale_by_diagonal(s.c2, dinv_, v(s.in), x);
        break;
      case RelaxStep::Kind::AddScaledByDiagonal:
        kernels.add_scaled_by_diagonal(s.c2, dinv_, v(s.in), x);
        break;
      case RelaxStep::Kind::Residual:
        kernels.residual(A, b, x, work(RelaxRole::R));
        break;
      case RelaxStep::Kind::ChebyshevStart:
        kernels.chebyshev_start(s.c2, dinv_, v(s.in), v(s.d), x);
        break;
      case RelaxStep::Kind::ChebyshevFirst:
        kernels.chebyshev_first(s.c2, dinv_, v(s.in), v(s.d), x);
        break;
      case RelaxStep::Kind::ChebyshevSpmvStep:
        kernels.chebyshev_spmv_step(A, s.c1, s.c2, dinv_, v(s.in), v(s.d), work(RelaxRole::R), v(s.d_next), x, s.last,
                                    pending);
        pending = SpmvEpilogue::Pending::None;
        break;
    }
  }
}

// The same steps with B^-1 (the block-diagonal matrix blocks_) where the point kernels scale by dinv:
// a row's update needs the residuals of its whole node, which other work-items compute, so the
// Chebyshev steps after the first take two SpMVs, the residual's (r = r_in - A d) and B^-1's with the
// update fused into it (d_next = c1 d + c2 B^-1 r, x += d_next): two launches for the point kernels'
// one. B^-1 has one node's row of entries per row: 2-6 on the shells, against their 48.
void Relaxation::apply_with_blocks(Matrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps) {
  RelaxationKernels kernels(blas_);
  Matrix& B = *blocks_;
  auto v = [&](RelaxRole role) -> Vector& { return role == RelaxRole::B ? b : role == RelaxRole::X ? x : work(role); };
  for (const RelaxStep& s : schedule(x_is_zero, sweeps)) {
    switch (s.kind) {
      case RelaxStep::Kind::ScaleByDiagonal:
        blas_.spmv(s.c2, B, v(s.in), 0.0, x);
        break;
      case RelaxStep::Kind::AddScaledByDiagonal:
        blas_.spmv(s.c2, B, v(s.in), 1.0, x);
        break;
      case RelaxStep::Kind::Residual:
        kernels.residual(A, b, x, work(RelaxRole::R));
        break;
      case RelaxStep::Kind::ChebyshevStart:
        kernels.node_block_correction(B, v(s.in), 0.0, s.c2, nullptr, v(s.d), x, true);
        break;
      case RelaxStep::Kind::ChebyshevFirst:
        kernels.node_block_correction(B, v(s.in), 0.0, s.c2, nullptr, v(s.d), x, false);
        break;
      case RelaxStep::Kind::ChebyshevSpmvStep: {
        Vector& r = work(RelaxRole::R);
        kernels.residual(A, v(s.in), v(s.d), r);
        kernels.node_block_correction(B, r, s.c1, s.c2, &v(s.d), v(s.d_next), x, false);
        break;
      }
    }
  }
}

// ---- refresh, shared -------------------------------------------------------------------------------

void Relaxation::start_refresh(Matrix& A) {
  refresh_run_ =
      refresh_runs_lanczos(policy_, setup_bounds_)
          ? start_spectrum_estimate(blas_, A, dinv_, refresh_steps(policy_), policy_.seed, &refresh_work_, blocks_)
          : SpectrumRun();
}

void Relaxation::finish_refresh(double gershgorin) {
  const bool ran = refresh_runs_lanczos(policy_, setup_bounds_);
  const SpectrumEstimate e = refresh_run_.finish("relaxation");
  refresh_run_ = SpectrumRun();
  use_bounds(refreshed_bounds(e, ran, gershgorin, policy_, setup_bounds_));
}

void Relaxation::refresh(Matrix& A, double gershgorin) {
  start_refresh(A);
  if (refresh_run_.in_flight()) A.context()->finish();
  finish_refresh(gershgorin);
}

// ---- damped Jacobi ---------------------------------------------------------------------------------

DampedJacobi::DampedJacobi(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, double weight, SpectrumPolicy policy,
                           Matrix* blocks)
    : Relaxation(blas, dinv, blocks, policy), given_weight_(weight), r_(A.context(), A.rows(), "jacobi.r") {
  // With a given weight the bound is only reported: Gershgorin's (no Lanczos steps spent on it).
  if (given_weight_ > 0) policy_.eigen_iterations = policy_.refresh_eigen_iterations = 0;
  setup_bounds_ = setup_bounds(blas_, A, gershgorin, dinv_, blocks_, policy_);
  use_bounds(setup_bounds_);
}

void DampedJacobi::use_bounds(const SpectrumBounds& bounds) {
  bounds_ = bounds;
  weight_ = given_weight_ > 0 ? given_weight_ : 4.0 / (3.0 * bounds_.upper);
}

Vector& DampedJacobi::work(RelaxRole role) {
  if (role != RelaxRole::R) throw Error("damped Jacobi has no correction vectors");
  return r_;
}

// Per sweep, n = rows: from zero x = w dinv b (3n); otherwise r = b - A x (an SpMV that reads b, 1n
// besides its own) and x += w dinv r (4n).
std::vector<RelaxStep> DampedJacobi::schedule(bool x_is_zero, int sweeps) const {
  std::vector<RelaxStep> steps;
  for (int s = 0; s < sweeps; ++s) {
    if (x_is_zero && s == 0) {
      steps.push_back({RelaxStep::Kind::ScaleByDiagonal, 0.0, weight_, RelaxRole::B});
      continue;
    }
    steps.push_back({RelaxStep::Kind::Residual});
    steps.push_back({RelaxStep::Kind::AddScaledByDiagonal, 0.0, weight_, RelaxRole::R});
  }
  return steps;
}

std::string DampedJacobi::description() const {
  return std::string(blocks_ ? "node-block " : "") + "jacobi (w = " + format_number(weight_) + ")";
}

// ---- Chebyshev ------------------------------------------------------------------------------------

ChebyshevRelaxation::ChebyshevRelaxation(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, int degree,
                                         ChebyshevKind kind, double lower_ratio, SpectrumPolicy policy, Matrix* blocks)
    : Relaxation(blas, dinv, blocks, policy),
      degree_(degree),
      kind_(kind),
      lower_ratio_(lower_ratio),
      r_(A.context(), A.rows(), "chebyshev.r"),
      d_(A.context(), A.rows(), "chebyshev.d"),
      d_next_(A.context(), A.rows(), "chebyshev.d_next") {
  if (degree < 1) throw Error("chebyshev: the degree is " + std::to_string(degree) + "; it must be at least 1");
  if (kind == ChebyshevKind::First && lower_ratio <= 0 && policy.eigen_iterations <= 0)
    throw Error(
        "chebyshev: the lower end of the interval needs Lanczos steps (eigen_iterations > 0) or lower_ratio > 0");
  setup_bounds_ = setup_bounds(blas_, A, gershgorin, dinv_, blocks_, policy_);
  use_bounds(setup_bounds_);
}

void ChebyshevRelaxation::use_bounds(const SpectrumBounds& bounds) {
  upper_ = bounds.upper;
  lower_ = lower_ratio_ > 0 ? lower_ratio_ * upper_ : bounds.lower;
  // A one-point spectrum (a diagonal matrix) or a Ritz value at the top: keep the interval open.
  lower_ = std::min(lower_, 0.99 * upper_);
  if (!(lower_ > 0)) lower_ = upper_ * 1e-3;
}

// Per sweep, n = rows, by the steps of Saad's Alg. 12.1 (r the residual, d the correction):
//   first step   from x = 0: d = c dinv b, x = d (4n; r = b is not copied)
//                otherwise:  r = b - A x (an SpMV reading b: 3n with its x), d = c dinv r, x += d (5n)
//   steps 2..k   one SpMV of A d with the update fused into it: r = r_in - A d, d' = c1 d + c2 dinv r,
//                x += d' (d, r_in, dinv, x twice, and r and d' unless it is the last step: 7n, 5n last)
// so Chebyshev(3) moves 16n of vectors from zero and 20n from a nonzero x besides its SpMVs' matrix
// entries, against 25n and 28n unfused (a copy per residual, an SpMV writing r that the separate
// update pass reads again). The first kind's coefficients: c = 1 / theta, c1 = rho' rho, c2 = 2 rho' /
// delta; the fourth kind's (Lottes' Alg. with his weights beta all 1): c = 4 / (3 upper), and at step
// k + 1, c1 = (2k - 1) / (2k + 3), c2 = (8k + 4) / ((2k + 3) upper).
std::vector<RelaxStep> ChebyshevRelaxation::schedule(bool x_is_zero, int sweeps) const {
  const bool fourth = kind_ == ChebyshevKind::Fourth;
  const double theta = 0.5 * (upper_ + lower_), delta = 0.5 * (upper_ - lower_);
  const double sigma = theta / delta;
  const double first_scale = fourth ? 4.0 / (3.0 * upper_) : 1.0 / theta;
  std::vector<RelaxStep> steps;
  for (int s = 0; s < sweeps; ++s) {
    RelaxRole d = RelaxRole::D0, d_next = RelaxRole::D1, r_in = RelaxRole::R;
    if (x_is_zero && s == 0) {
      steps.push_back({RelaxStep::Kind::ChebyshevStart, 0.0, first_scale, RelaxRole::B, d});
      r_in = RelaxRole::B;
    } else {
      steps.push_back({RelaxStep::Kind::Residual});
      steps.push_back({RelaxStep::Kind::ChebyshevFirst, 0.0, first_scale, RelaxRole::R, d});
    }
    double rho = 1.0 / sigma;  // the first kind's recurrence; the fourth kind's coefficients need only k
    for (int k = 1; k < degree_; ++k) {
      double c1, c2;
      if (fourth) {
        c1 = (2.0 * k - 1) / (2.0 * k + 3);
        c2 = (8.0 * k + 4) / ((2.0 * k + 3) * upper_);
      } else {
        const double rho_next = 1.0 / (2.0 * sigma - rho);
        c1 = rho_next * rho;
        c2 = 2.0 * rho_next / delta;
        rho = rho_next;
      }
      steps.push_back({RelaxStep::Kind::ChebyshevSpmvStep, c1, c2, r_in, d, d_next, k + 1 == degree_});
      std::swap(d, d_next);
      r_in = RelaxRole::R;
    }
  }
  return steps;
}

Vector& ChebyshevRelaxation::work(RelaxRole role) {
  switch (role) {
    case RelaxRole::R:
      return r_;
    case RelaxRole::D0:
      return d_;
    case RelaxRole::D1:
      return d_next_;
    default:
      throw Error("chebyshev: b and x are the sweep's, not the smoother's");
  }
}

std::string ChebyshevRelaxation::description() const {
  const std::string blocks = blocks_ ? "node-block " : "";
  if (kind_ == ChebyshevKind::Fourth)
    return blocks + "chebyshev4 (fourth kind, degree " + std::to_string(degree_) + " on (0, " + format_number(upper_) +
           "])";
  return blocks + "chebyshev (degree " + std::to_string(degree_) + " on [" + format_number(lower_) + ", " +
         format_number(upper_) + "])";
}

}  // namespace clkr::detail
