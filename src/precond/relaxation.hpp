// Relaxation (smoothing) of A x = b on one level, as AMGCL names it: damped Jacobi and Chebyshev, each
// a few SpMVs and elementwise updates on a Blas. The AMG V-cycle smooths with them on every level and
// clkr::Chebyshev applies one Chebyshev sweep from zero as a preconditioner.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "relaxation_kernels.hpp"
#include "spectrum.hpp"

namespace clkr::detail {

// How lambda_max(D^-1 A) is bounded: `eigen_iterations` Lanczos steps (times a safety factor, and
// never above Gershgorin's bound), or Gershgorin's bound alone (0). Callers pass Gershgorin's bound
// (spectrum.hpp: gershgorin_bound, on the host or the device). refresh() (new values of A) runs
// `refresh_eigen_iterations` steps (-1: as many as the setup; 0: Gershgorin's bound alone) from the
// setup's start vector: as many as the setup's run give a fresh estimate; fewer scale the setup's
// estimate by the ratio of the new largest Ritz value to the one the setup's run had after as many
// steps, plus a margin of up to `short_refresh_margin` (relaxation.cpp says why).
struct SpectrumPolicy {
  int eigen_iterations = 10;
  double upper_safety = 1.1;
  std::uint64_t seed = 1;
  int refresh_eigen_iterations = -1;
  double short_refresh_margin = 0.05;
};

// The interval a smoother works on, and what refresh() scales it from.
struct SpectrumBounds {
  double lower = 0, upper = 0;  // the smallest Ritz value (0 without Lanczos steps); the bound used
  // At setup: upper_safety x the largest Ritz value, and the largest Ritz value of the first
  // refresh_eigen_iterations steps (0 without Lanczos steps).
  double estimate = 0, lambda_min = 0, short_ritz = 0;
};

// The vectors a sweep works on, by role: its right-hand side b and solution x, and the smoother's own
// residual and two corrections.
enum class RelaxRole { B, X, R, D0, D1 };

// One step of a sweep (one kernel of relaxation_kernels.hpp): what Relaxation::apply runs, and what the
// AMG's one-launch coarse cycle (amg/coarse_cycle.cpp) turns into steps of its kernel. `in` is the
// step's input vector, d and d_next the corrections it writes and reads.
struct RelaxStep {
  enum class Kind {
    ScaleByDiagonal,      // X = c2 dinv .* in
    AddScaledByDiagonal,  // X += c2 dinv .* in
    Residual,             // R = B - A X
    ChebyshevStart,       // d = c2 dinv .* in;  X = d
    ChebyshevFirst,       // d = c2 dinv .* in;  X += d
    ChebyshevSpmvStep     // R' = in - A d;  d_next = c1 d + c2 dinv .* R';  X += d_next;  R = R' (unless last)
  };
  Kind kind;
  double c1 = 0, c2 = 0;
  RelaxRole in = RelaxRole::B, d = RelaxRole::D0, d_next = RelaxRole::D1;
  bool last = false;  // ChebyshevSpmvStep: the sweep's last, which writes neither R nor d_next
};

class Relaxation {
 public:
  virtual ~Relaxation() = default;
  // `sweeps` times x <- x + S (b - A x): the steps of schedule() on the Blas. With x_is_zero, x's
  // contents are ignored and taken as zero (the first residual is b itself: one SpMV saved).
  void apply(Matrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps);
  // The steps of `sweeps` sweeps, with the current bounds' coefficients.
  virtual std::vector<RelaxStep> schedule(bool x_is_zero, int sweeps) const = 0;
  // A's values changed (dinv holds the new inverse diagonal, or will once the queue reaches it): new
  // spectrum bounds, with `gershgorin` Gershgorin's bound for the new values. In two steps so that the
  // AMG's levels share one wait: start_refresh enqueues the Lanczos steps (and returns without waiting),
  // finish_refresh sets the bounds once the caller has waited for the queue. refresh does both.
  void start_refresh(Matrix& A);
  void finish_refresh(double gershgorin);
  void refresh(Matrix& A, double gershgorin);
  // The bound on lambda_max(D^-1 A) the smoother uses (of B^-1 A with node blocks).
  virtual double lambda_max() const = 0;
  virtual std::string description() const = 0;

 protected:
  // `blocks`: the block-diagonal inverse of A's node blocks (node_block_inverse.hpp), or null for the
  // point scaling by dinv. The caller keeps it (and refreshes its values before start_refresh).
  Relaxation(Blas& blas, Vector& dinv, Matrix* blocks, SpectrumPolicy policy)
      : blas_(blas), dinv_(dinv), blocks_(blocks), policy_(policy) {}
  // Takes new bounds (at setup and after a refresh).
  virtual void use_bounds(const SpectrumBounds& bounds) = 0;
  // The smoother's own vector for a role (R, D0, D1).
  virtual Vector& work(RelaxRole role) = 0;

  Blas& blas_;
  Vector& dinv_;
  Matrix* blocks_;
  SpectrumPolicy policy_;
  SpectrumBounds setup_bounds_;

 private:
  void apply_with_blocks(Matrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps);

  SpectrumRun refresh_run_;                    // start_refresh's Lanczos steps, until finish_refresh
  std::unique_ptr<LanczosWork> refresh_work_;  // their vectors and scalars, kept from one refresh to the next
};

// With node blocks (Relaxation's `blocks`), D below is the node-block diagonal B and `gershgorin` the
// bound on B^-1 A (NodeBlockInverse::gershgorin).
//
// x += w D^-1 (b - A x), w = `weight`, or 4 / (3 lambda_max) when weight is 0 (damps the upper two
// thirds of the spectrum; 2/3 for the 3D Poisson stencil's lambda_max of 2).
class DampedJacobi : public Relaxation {
 public:
  DampedJacobi(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, double weight, SpectrumPolicy policy,
               Matrix* blocks = nullptr);
  std::vector<RelaxStep> schedule(bool x_is_zero, int sweeps) const override;
  double lambda_max() const override { return bounds_.upper; }
  std::string description() const override;
  double weight() const { return weight_; }

 private:
  void use_bounds(const SpectrumBounds& bounds) override;
  Vector& work(RelaxRole role) override;

  double given_weight_, weight_ = 0;
  SpectrumBounds bounds_;
  Vector r_;
};

// First: the Chebyshev iteration on [lower, upper] (Saad, Iterative Methods, Alg. 12.1), the
// polynomial smallest on that interval. Fourth: the fourth-kind Chebyshev smoother of Lottes
// ("Optimal polynomial smoothers for multigrid V-cycles", 2023), whose error polynomial
// W_k(1 - 2 lambda / upper) / (2k + 1) is small on the whole of (0, upper] away from 0 with no lower end
// to choose: the same steps as the first kind's with other coefficients.
enum class ChebyshevKind { First, Fourth };

// One sweep is a Chebyshev iteration of degree `degree` for D^-1 A: `degree` SpMVs, no reductions.
// upper bounds lambda_max; for the first kind lower is lower_ratio * upper when lower_ratio > 0 (a
// smoother: only the top of the spectrum is damped), else the smallest Ritz value (a preconditioner:
// the whole spectrum); the fourth kind has no lower end.
class ChebyshevRelaxation : public Relaxation {
 public:
  ChebyshevRelaxation(Blas& blas, Matrix& A, double gershgorin, Vector& dinv, int degree, ChebyshevKind kind,
                      double lower_ratio, SpectrumPolicy policy, Matrix* blocks = nullptr);
  std::vector<RelaxStep> schedule(bool x_is_zero, int sweeps) const override;
  double lambda_max() const override { return upper_; }
  std::string description() const override;
  double lower() const { return lower_; }
  double upper() const { return upper_; }

 private:
  void use_bounds(const SpectrumBounds& bounds) override;
  Vector& work(RelaxRole role) override;

  int degree_;
  ChebyshevKind kind_;
  double lower_ratio_;
  double lower_ = 0, upper_ = 0;
  // The residual, and two corrections: a fused step (RelaxationKernels::chebyshev_spmv_step) reads the
  // previous correction in every row's SpMV while it writes the next.
  Vector r_, d_, d_next_;
};

// r = b - A x on `blas` (r = b when x_is_zero), in one fused SpMV where A's format allows.
void residual(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, bool x_is_zero);

}  // namespace clkr::detail
