// Reliable-update mixed-precision CG (Sleijpen and van der Vorst 1996; on GPUs QUDA's "reliable
// updates", Clark et al. 2010): iterative refinement that keeps its Krylov space.
//
// Restarted refinement solves A d = r afresh at every outer step, so each inner CG rebuilds the Krylov
// space the previous one threw away. Here one CG runs in the inner precision from start to end and only
// its residual is refreshed from the outer precision. With s the scale of the current segment:
//
//   x (outer), dx (inner):   the iterate is x + s dx;   r (inner) ~ (b - A (x + s dx)) / s
//   every inner iteration:   CG on (dx, r, p) in the inner precision, unchanged
//   a reliable update, once the recursive ||r|| has fallen below delta times its largest value since the
//   previous update (or has reached the tolerance):
//       x += s dx                   outer   the increment folded in, dx converted once
//       r = b - A x                 outer   the true residual replaces the drifted recursive one
//       s' = ||r||;  r /= s'        outer   then converted to the inner precision once
//       p *= s / s'                 inner   the search direction is kept, in the new scale,
//       p -= ((r'p - r'r) / r'r) r  inner   with r'p = r'r restored (as CG's r and p satisfy)
//       dx = 0;  rho = r'r;  s = s' inner
//
// With a preconditioner M (PCG) the inner iteration is PCG's, z = M^-1 r applied to the inner
// residual, and the update restores PCG's r'p = r'z instead: z (of the last recursive residual,
// rescaled, where it is like the new one; else M^-1 r afresh), p -= ((r'p - r'z) / r'z) z and
// rho = r'z. M works in the inner precision, so everything an iteration moves is in it, the
// preconditioner's bytes included; only the updates touch the outer one.
//
// Between two updates the recursive residual drifts from the true one by about u_inner * kappa(A) times
// the largest residual of the segment (Greenbaum 1997), so with delta = 0.1 the drift stays a small
// part of what a segment gains, and the iteration count stays close to CG's in the outer precision
// while every vector of the iteration moves in the inner one. Scaling r to unit norm keeps the inner
// vectors clear of single precision's underflow, however small b or the residual get.
#include "reliable_update_cg.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "cg_fused.hpp"
#include "solver_core.hpp"

namespace clkr::detail {
namespace {

enum class Next {
  Iterate,  // go on with the inner CG
  Update,   // a reliable update is due
  Stop      // the solve has ended (the monitor holds why)
};

// The state the device and host iterations share: the outer x and the segment's scale, the verdict on
// each inner iteration, and the reliable update itself.
class ReliableUpdates {
 public:
  ReliableUpdates(Blas& outer, Blas& inner, Matrix& A, Preconditioner* M, Vector& b, Vector& x,
                  const SolveOptions& options, SolveMonitor& monitor)
      : r(outer.context(), b.size(), "ir.r"),
        dx(outer.context(), b.size(), "ir.dx"),
        p(outer.context(), b.size(), "ir.p"),
        q(outer.context(), b.size(), "ir.q"),
        M(M),
        outer_(outer),
        inner_(inner),
        A_(A),
        b_(b),
        x_(x),
        options_(options),
        monitor_(monitor),
        inner_name_(to_string(inner.precision())) {}

  // The inner iteration's vectors: r, dx, p and q in the inner precision (r is also written in the
  // outer one at each update and converted lazily); z = M^-1 r with a preconditioner.
  Vector r, dx, p, q;
  std::optional<Vector> z;
  Preconditioner* const M;  // null: CG
  // rho of the recursion for the r (and z) that start() or the latest update() left: r'r, or PCG's
  // r'z, queued on the device (the update computes it for its own restore of p anyway).
  DeviceScalar rho;

  // r = b - A x;  s = ||r||;  r /= s;  p = r (PCG: z = M^-1 r, p = z);  dx = 0. False when there is
  // nothing to iterate (the start meets the tolerance, max_iterations = 0, ||r|| is not finite, or
  // r'z <= 0).
  bool start(bool x_is_zero) {
    compute_residual(outer_, A_, b_, x_, r, x_is_zero);
    const double norm = outer_.nrm2(r);
    if (!monitor_.record_start("||r||", norm, norm)) return false;
    if (options_.max_iterations == 0) return false;
    outer_.scal(1.0 / norm, r);
    if (M) {
      z.emplace(outer_.context(), b_.size(), "ir.z");
      M->apply(r, *z);
      inner_.copy(*z, p);
      rho = inner_.dot_async(r, *z);
      if (!accept_rz(rho.value())) return false;
    } else {
      inner_.copy(r, p);
      rho = inner_.dot_async(r, r);
    }
    set_zero(inner_, dx);
    scale_ = peak_ = best_ = norm;
    return true;
  }

  // PCG's r'z (in the segment's scale) after the latest inner iteration or update: false, with the
  // solve finished, when it is not finite or not positive (M is not positive definite).
  bool accept_rz(double rz) {
    const int j = monitor_.result().inner_iterations;
    if (!monitor_.check_finite(j, "inner r'z", rz)) return false;
    if (rz > 0) return true;
    monitor_.finish(SolveStatus::NotSpd, "r'z = r'M^-1 r = " + format_number(rz) + " <= 0 at inner iteration " +
                                             std::to_string(j) + " (" + inner_name_ +
                                             "): the preconditioner is not positive definite");
    return false;
  }

  // p'Ap of the next inner iteration (in the segment's scale): false, with the solve finished, when it
  // is not finite or not positive.
  bool accept_curvature(double pq) {
    const int j = monitor_.result().inner_iterations + 1;
    if (!monitor_.check_finite(j, "inner p'Ap", pq)) return false;
    if (pq > 0) return true;
    monitor_.finish(SolveStatus::NotSpd, "p'Ap = " + format_number(pq) + " <= 0 at inner iteration " +
                                             std::to_string(j) + " (" + inner_name_ + "): the matrix is not SPD");
    return false;
  }

  // Counts an inner iteration that left r'r = rr (in the segment's scale) and says what comes next.
  Next after_step(double rr) {
    const int j = ++monitor_.result().inner_iterations;
    if (!monitor_.check_finite(j, "inner r'r", rr)) return Next::Stop;
    ++segment_;
    recursive_ = scale_ * std::sqrt(rr);
    peak_ = std::max(peak_, recursive_);
    const bool due = recursive_ <= options_.reliable_update_delta * peak_ || monitor_.reached(recursive_) ||
                     segment_ >= options_.inner_max_iterations;
    return due ? Next::Update : Next::Iterate;
  }

  // The reliable update (see the top of the file). keep_p false restarts the direction from r (PCG:
  // from z): after the inner residual vanished exactly, the kernels leave p zero or undefined. Memory
  // moved, n = rows: outer precision x += s dx 3n (+ dx converted, n inner read, n written),
  // r = b - A x 2n + the outer matrix + 2n, ||r|| n, r /= s' 2n; inner r converted (n read, n
  // written), p 2n (PCG: z 2n, or an application of M), r'r (r'z) and r'p 3n, p 3n, dx n. Two host
  // round trips (||r||; r'r and r'p together), r'r (r'z) kept as the next rho. False when the solve
  // has ended.
  bool update(bool keep_p) {
    outer_.axpy(scale_, dx, x_);
    compute_residual(outer_, A_, b_, x_, r, false);
    const double norm = outer_.nrm2(r);
    const int k = ++updates_;
    if (!monitor_.check_finite(k, "||b - A x||", norm)) return false;
    monitor_.record(k, norm);
    if (monitor_.reached(norm)) {
      monitor_.finish(SolveStatus::Converged,
                      "||b - A x|| / ||b|| = " + format_number(monitor_.criterion().relative(norm)) +
                          " reached the tolerance at reliable update " + std::to_string(k));
      return false;
    }
    if (stagnated(k, norm) || k >= options_.max_iterations) return false;
    outer_.scal(1.0 / norm, r);
    // PCG's direction comes from z = M^-1 r where CG's comes from r.
    Vector& w = M ? *z : r;
    if (keep_p) {
      inner_.scal(scale_ / norm, p);
      // PCG: the z of the last recursive residual, in the new scale, stands in for M^-1 of the new r
      // where the two residuals are alike: the update ended a segment just past delta and the true
      // norm is within 10% of the recursive one, so that they differ by a small drift; the restore
      // below keeps alpha the exact minimiser along p whatever z is, and a new z would cost an
      // application of M per update (with AMG a V-cycle every two or three iterations). Where the
      // recursive residual plunged far below delta in one step (a strong M: at a precision's floor
      // it is rounding noise, unlike the true one) or the norms disagree, z is made afresh.
      const bool alike =
          recursive_ >= 0.1 * options_.reliable_update_delta * peak_ && std::abs(norm - recursive_) <= 0.1 * norm;
      if (M && alike) inner_.scal(scale_ / norm, *z);
      if (M && !alike) M->apply(r, *z);
      // r'p = r'w, as CG's p and r satisfy (w = r; PCG: w = z): p -= ((r'p - r'w) / r'w) w (QUDA's
      // "restore the orthogonality of the gradient vector"). alpha = r'w / p'Ap is then the exact
      // minimiser along p even when the new r differs much from the recursive one (at a precision's
      // floor, where it is rounding noise): without it that step can make the iteration diverge.
      // r'w is also the next rho: the restore changes neither r nor w.
      rho = inner_.dot_async(r, w);
      const DeviceScalar rp_async = inner_.dot_async(r, p);
      const double rw = rho.value(), rp = rp_async.value();
      if (M && !accept_rz(rw)) return false;
      inner_.axpy(-(rp - rw) / rw, w, p);
    } else {
      if (M) M->apply(r, *z);
      rho = inner_.dot_async(r, w);
      if (M && !accept_rz(rho.value())) return false;
      inner_.copy(w, p);
    }
    set_zero(inner_, dx);
    scale_ = peak_ = norm;
    segment_ = 0;
    return true;
  }

 private:
  // The true residual no longer follows the recursive one: the floor of a precision. Said when an
  // update gained less than a factor 2 on the segment's largest residual while the recursive one
  // claimed more than twice the true one's progress, or when three updates in a row did not improve
  // on the smallest true residual so far (CG's residual is not monotone, so one such update is not
  // enough).
  bool stagnated(int k, double norm) {
    const bool lost = norm > 0.5 * peak_ && norm > 2 * recursive_;
    if (norm < best_) {
      best_ = norm;
      since_best_ = 0;
    } else {
      ++since_best_;
    }
    if (!lost && since_best_ < 3) return false;
    monitor_.finish(SolveStatus::Stagnated,
                    "at reliable update " + std::to_string(k) + " ||b - A x|| / ||b|| = " +
                        format_number(monitor_.criterion().relative(norm)) + " against the " + inner_name_ +
                        " recursive " + format_number(monitor_.criterion().relative(recursive_)) +
                        ": the inner precision cannot resolve this system further, or the tolerance is below "
                        "the outer precision's floor");
    return true;
  }

  Blas& outer_;
  Blas& inner_;
  Matrix& A_;
  Vector& b_;
  Vector& x_;
  const SolveOptions& options_;
  SolveMonitor& monitor_;
  std::string inner_name_;
  double scale_ = 1;      // s: the inner vectors hold the residual and the increment divided by it
  double peak_ = 0;       // the largest residual norm of the segment (its true starting one included)
  double recursive_ = 0;  // the latest recursive residual norm, unscaled
  double best_ = 0;       // the smallest true residual norm so far
  int since_best_ = 0;    // updates since best_ last improved
  int segment_ = 0;       // inner iterations since the last update
  int updates_ = 0;
};

// The device iteration: cg_device's three fused kernels per inner iteration (FusedCgSteps, scalars on
// the device, the host reading r'r one iteration late), moving the inner matrix + 11n elements of the
// inner precision, with dx in the place of x (PCG: + M's application and r'z, 2n). When the host sees
// an update is due, the iteration in flight finishes on the recursive residual first (it counts like
// any other), then the update runs.
void iterate_fused(ReliableUpdates& state, Blas& inner, Matrix& A, const SolveOptions& options) {
  Preconditioner* const M = state.M;
  FusedCgSteps steps(inner, A, M ? std::optional(M->precision()) : std::nullopt);
  steps.set_rho(state.rho);
  // At most kReadSlots iterations in flight; iteration k of a segment reads into slot k % kReadSlots.
  constexpr int slots = FusedCgSteps::kReadSlots;
  int launched = 0, examined = 0;  // in the current segment
  auto launch = [&] {
    ++launched;
    steps.spmv_dot(state.p, state.q);                      // q = A p;  partial p'q
    steps.update_xr(state.dx, state.r, state.p, state.q);  // alpha = rho / p'q;  dx += alpha p;  r -= alpha q
    if (M) {
      M->apply(state.r, *state.z);                       // z = M^-1 r
      steps.dot_rz(state.r, *state.z);                   // partial r'z
      steps.update_p_preconditioned(*state.z, state.p);  // beta = r'z / rho;  p = z + beta p;  rho = r'z
    } else {
      steps.update_p(state.r, state.p);  // beta = r'r / rho;  p = r + beta p;  rho = r'r
    }
    steps.read_scalars(launched % slots);
    inner.context()->queue().flush();  // see cg_device: keep the device busy while the host waits
  };

  for (;;) {
    if (launched < options.inner_max_iterations && launched - examined < slots) {
      launch();
      continue;
    }
    FusedCgSteps::Scalars s = steps.wait_scalars(++examined % slots);
    if (!state.accept_curvature(s.pq)) return;
    const Next next = state.after_step(s.rr);
    if (next == Next::Stop) return;
    if (next == Next::Iterate) {
      if (M && !state.accept_rz(s.rho)) return;
      continue;
    }
    // Once r'r is exactly zero the iteration in flight does nothing (alpha = 0) and leaves p undefined.
    bool keep_p = s.rr > 0;
    while (examined < launched) {
      s = steps.wait_scalars(++examined % slots);
      if (!keep_p) continue;
      if (!state.accept_curvature(s.pq) || state.after_step(s.rr) == Next::Stop) return;
      keep_p = s.rr > 0;
    }
    if (!state.update(keep_p)) return;
    steps.set_rho(state.rho);
    launched = examined = 0;
  }
}

// The BLAS-call iteration (the host backend, and CgPath::Unfused): per inner iteration the inner
// matrix + 14n elements and two host round trips (p'q, r'r), as cg_core's (PCG: + M's application and
// r'z, 2n, read back with r'r).
void iterate_blas(ReliableUpdates& state, Blas& inner, Matrix& A) {
  Preconditioner* const M = state.M;
  double rho = state.rho.value();
  for (;;) {
    // q = A p;  p'q
    inner.spmv(1.0, A, state.p, 0.0, state.q);
    const double pq = inner.dot(state.p, state.q);
    if (!state.accept_curvature(pq)) return;
    // alpha = rho / p'q;  dx += alpha p;  r -= alpha q;  r'r
    const double alpha = rho / pq;
    inner.axpy(alpha, state.p, state.dx);
    inner.axpy(-alpha, state.q, state.r);
    // r'r (the updates' test) and PCG's z = M^-1 r, r'z, read back together
    if (M) M->apply(state.r, *state.z);
    const DeviceScalar rr_async = inner.dot_async(state.r, state.r);
    std::optional<DeviceScalar> rz_async;
    if (M) rz_async.emplace(inner.dot_async(state.r, *state.z));
    const double rr = rr_async.value(), rho_new = rz_async ? rz_async->value() : rr;
    const Next next = state.after_step(rr);
    if (next == Next::Stop) return;
    if (M && next == Next::Iterate && !state.accept_rz(rho_new)) return;
    // beta = rho_new / rho;  p = r + beta p (PCG: z + beta p), before an update too, as on the device:
    // the update keeps p
    const bool keep_p = rr > 0;
    if (keep_p) inner.aypx(rho_new / rho, M ? *state.z : state.r, state.p);
    rho = rho_new;
    if (next == Next::Update) {
      if (!state.update(keep_p)) return;
      rho = state.rho.value();
    }
  }
}

}  // namespace

void reliable_update_cg(Blas& outer, Blas& inner, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                        const SolveOptions& options, SolveMonitor& monitor) {
  ReliableUpdates state(outer, inner, A, preconditioned(M) ? M : nullptr, b, x, options, monitor);
  if (!state.start(x_is_zero)) return;
  if (inner.location() == Location::Device && options.cg_path != CgPath::Unfused) {
    iterate_fused(state, inner, A, options);
  } else {
    iterate_blas(state, inner, A);
  }
}

}  // namespace clkr::detail
