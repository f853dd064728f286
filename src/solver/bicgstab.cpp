// BiCGStab (van der Vorst 1992) for non-symmetric matrices: two SpMVs per iteration, no transpose;
// right-preconditioned with M (A M^-1 y = b, x = M^-1 y), so the residual it tracks is b - A x.
#include "clkr/solver/bicgstab.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "clkr/runtime/error.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace detail {

// Memory moved per iteration, n = rows, in elements of the Blas precision: two SpMVs (the matrix
// twice), p update 6n, (r0, v) 2n, s 3n, (s, s) (t, s) (t, t) 4n, x 6n, r 3n, (r, r) (r0, r) 3n:
// about 27n + 2 matrices, plus two applications of M when preconditioned. Three host round trips per
// iteration: (r0, v); then (s, s), (t, s), (t, t) together; then (r, r) and (r0, r) together.
void bicgstab_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                   const SolveOptions& options, SolveMonitor& monitor) {
  const auto& context = blas.context();
  const std::size_t n = b.size();
  // s is computed in place of r; r0 is the fixed shadow residual.
  Vector r(context, n, "bicgstab.r"), r0(context, n, "bicgstab.r0"), p(context, n, "bicgstab.p"),
      v(context, n, "bicgstab.v"), t(context, n, "bicgstab.t");
  // Right preconditioning: p_hat = M^-1 p and s_hat = M^-1 s are what A multiplies and x gathers;
  // without M they are p and s themselves.
  const bool right = preconditioned(M);
  std::optional<Vector> p_store, s_store;
  if (right) {
    p_store.emplace(context, n, "bicgstab.p_hat");
    s_store.emplace(context, n, "bicgstab.s_hat");
  }
  Vector& p_hat = right ? *p_store : p;
  Vector& s_hat = right ? *s_store : r;

  // r = b - A x;  r0 = r;  rho = (r0, r) = r'r
  compute_residual(blas, A, b, x, r, x_is_zero);
  blas.copy(r, r0);
  double rho = blas.dot(r, r);
  if (!monitor.record_start("r'r", rho, std::sqrt(rho))) return;
  const auto breakdown = [&](int k, const std::string& what) {
    monitor.finish(SolveStatus::Breakdown, what + " at iteration " + std::to_string(k) + ": BiCGStab breaks down");
  };
  // After an explicit residual check that did not confirm convergence: r = b - A x, and the
  // iteration starts afresh from it (new shadow residual r0 = r). Returns false when the solve ended.
  bool fresh = true;
  const auto confirm_or_restart = [&](int k) {
    compute_residual(blas, A, b, x, r, false);
    rho = blas.dot(r, r);
    if (monitor.check_explicit(k, std::sqrt(rho)) == AfterCheck::Stop) return false;
    blas.copy(r, r0);
    fresh = true;
    return true;
  };

  double rho_old = 1, alpha = 1, omega = 1;
  for (int k = 1; k <= options.max_iterations; ++k) {
    if (rho == 0) return breakdown(k, "rho = (r0, r) = 0 (r is orthogonal to the shadow residual)");
    if (fresh) {
      // p = r
      blas.copy(r, p);
    } else {
      // beta = (rho / rho_old) (alpha / omega);  p = r + beta (p - omega v)
      blas.axpy(-omega, v, p);
      blas.aypx((rho / rho_old) * (alpha / omega), r, p);
    }
    fresh = false;
    // p_hat = M^-1 p;  v = A p_hat;  alpha = rho / (r0, v)  (one scalar read back)
    if (right) M->apply(p, p_hat);
    blas.spmv(1.0, A, p_hat, 0.0, v);
    const double r0v = blas.dot(r0, v);
    if (!monitor.check_finite(k, "(r0, Ap)", r0v)) return;
    if (r0v == 0) return breakdown(k, "(r0, Ap) = 0");
    alpha = rho / r0v;
    // s = r - alpha v (in r);  s_hat = M^-1 s;  t = A s_hat;  ss = (s, s), ts = (t, s), tt = (t, t)
    blas.axpy(-alpha, v, r);
    if (right) M->apply(r, s_hat);
    blas.spmv(1.0, A, s_hat, 0.0, t);
    DeviceScalar ss_async = blas.dot_async(r, r), ts_async = blas.dot_async(t, r), tt_async = blas.dot_async(t, t);
    const double ss = ss_async.value(), ts = ts_async.value(), tt = tt_async.value();
    if (!monitor.check_finite(k, "(s, s)", ss) || !monitor.check_finite(k, "(t, s)", ts) ||
        !monitor.check_finite(k, "(t, t)", tt)) {
      return;
    }
    if (monitor.reached(std::sqrt(ss))) {
      // Converged half way: x += alpha p_hat.
      blas.axpy(alpha, p_hat, x);
      monitor.record(k, std::sqrt(ss));
      if (!confirm_or_restart(k)) return;
      continue;
    }
    if (tt == 0) return breakdown(k, "(As, As) = 0 with s != 0 (A is singular)");
    // omega = (t, s) / (t, t);  x += alpha p_hat + omega s_hat;  r = s - omega t
    rho_old = rho;
    omega = ts / tt;
    blas.axpy(alpha, p_hat, x);
    blas.axpy(omega, s_hat, x);
    blas.axpy(-omega, t, r);
    // rr = (r, r) for the stopping test, rho = (r0, r) for the next step  (one round trip)
    DeviceScalar rr_async = blas.dot_async(r, r), rho_async = blas.dot_async(r0, r);
    const double rr = rr_async.value();
    rho = rho_async.value();
    if (!monitor.check_finite(k, "(r, r)", rr) || !monitor.check_finite(k, "(r0, r)", rho)) return;
    monitor.record(k, std::sqrt(rr));
    if (monitor.reached(std::sqrt(rr))) {
      if (!confirm_or_restart(k)) return;
      continue;
    }
    if (omega == 0) return breakdown(k, "omega = (As, s) / (As, As) = 0");
  }
}

}  // namespace detail

SolveResult bicgstab(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("bicgstab", blas, A, nullptr, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::bicgstab_core(blas, A, nullptr, b, x, x_is_zero, options, monitor);
                             });
}

SolveResult bicgstab(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  if (M.variable())
    throw Error("bicgstab: the preconditioner " + M.description() +
                " changes between applications; BiCGStab needs a fixed one (use fgmres)");
  return detail::run_checked("bicgstab", blas, A, &M, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::bicgstab_core(blas, A, &M, b, x, x_is_zero, options, monitor);
                             });
}

}  // namespace clkr
