// The BiCGStab iteration (van der Vorst 1992), right-preconditioned, written once against the
// operations of `Ops` (DeviceKrylovOps on one device, DistKrylovOps over MPI ranks): vectors, copy,
// axpy, aypx, dots, multiply by A, precondition, residual. Every branch depends only on reduced
// scalars, so ranks running it together stay in step.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "solve_monitor.hpp"

namespace clkr::detail {

// Memory moved per iteration, n = rows, in elements of the precision: two SpMVs (the matrix twice),
// p update 6n, (r0, v) 2n, s 3n, (s, s) (t, s) (t, t) 4n, x 6n, r 3n, (r, r) (r0, r) 3n: about 27n + 2
// matrices, plus two applications of M when preconditioned. Three reductions (host round trips, and
// MPI_Allreduce over ranks) per iteration: (r0, v); then (s, s), (t, s), (t, t) together; then (r, r)
// and (r0, r) together.
template <class Ops>
void bicgstab_iteration(Ops& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor) {
  using Vec = typename Ops::Vec;
  // s is computed in place of r; r0 is the fixed shadow residual.
  Vec r = ops.vector("bicgstab.r"), r0 = ops.vector("bicgstab.r0"), p = ops.vector("bicgstab.p");
  Vec v = ops.vector("bicgstab.v"), t = ops.vector("bicgstab.t");
  // Right preconditioning: p_hat = M^-1 p and s_hat = M^-1 s are what A multiplies and x gathers;
  // without M they are p and s themselves.
  const bool right = ops.preconditioned();
  std::optional<Vec> p_store, s_store;
  if (right) {
    p_store.emplace(ops.vector("bicgstab.p_hat"));
    s_store.emplace(ops.vector("bicgstab.s_hat"));
  }
  Vec& p_hat = right ? *p_store : p;
  Vec& s_hat = right ? *s_store : r;

  // r = b - A x;  r0 = r;  rho = (r0, r) = r'r
  ops.residual(r, x_is_zero);
  ops.copy(r, r0);
  double rho = ops.dot(r, r);
  if (!monitor.record_start("r'r", rho, std::sqrt(rho))) return;
  const auto breakdown = [&](int k, const std::string& what) {
    monitor.finish(SolveStatus::Breakdown, what + " at iteration " + std::to_string(k) + ": BiCGStab breaks down");
  };
  // After an explicit residual check that did not confirm convergence: r = b - A x, and the
  // iteration starts afresh from it (new shadow residual r0 = r). Returns false when the solve ended.
  bool fresh = true;
  const auto confirm_or_restart = [&](int k) {
    ops.residual(r, false);
    rho = ops.dot(r, r);
    if (monitor.check_explicit(k, std::sqrt(rho)) == AfterCheck::Stop) return false;
    ops.copy(r, r0);
    fresh = true;
    return true;
  };

  double rho_old = 1, alpha = 1, omega = 1;
  for (int k = 1; k <= options.max_iterations; ++k) {
    if (rho == 0) return breakdown(k, "rho = (r0, r) = 0 (r is orthogonal to the shadow residual)");
    if (fresh) {
      // p = r
      ops.copy(r, p);
    } else {
      // beta = (rho / rho_old) (alpha / omega);  p = r + beta (p - omega v)
      ops.axpy(-omega, v, p);
      ops.aypx((rho / rho_old) * (alpha / omega), r, p);
    }
    fresh = false;
    // p_hat = M^-1 p;  v = A p_hat;  alpha = rho / (r0, v)  (one reduction)
    if (right) ops.precondition(p, p_hat);
    ops.multiply(p_hat, v);
    const double r0v = ops.dot(r0, v);
    if (!monitor.check_finite(k, "(r0, Ap)", r0v)) return;
    if (r0v == 0) return breakdown(k, "(r0, Ap) = 0");
    alpha = rho / r0v;
    // s = r - alpha v (in r);  s_hat = M^-1 s;  t = A s_hat;  ss = (s, s), ts = (t, s), tt = (t, t)
    ops.axpy(-alpha, v, r);
    if (right) ops.precondition(r, s_hat);
    ops.multiply(s_hat, t);
    const std::vector<double> sts = ops.dots({{&r, &r}, {&t, &r}, {&t, &t}});
    const double ss = sts[0], ts = sts[1], tt = sts[2];
    if (!monitor.check_finite(k, "(s, s)", ss) || !monitor.check_finite(k, "(t, s)", ts) ||
        !monitor.check_finite(k, "(t, t)", tt)) {
      return;
    }
    if (monitor.reached(std::sqrt(ss))) {
      // Converged half way: x += alpha p_hat.
      ops.axpy(alpha, p_hat, ops.x);
      monitor.record(k, std::sqrt(ss));
      if (!confirm_or_restart(k)) return;
      continue;
    }
    if (tt == 0) return breakdown(k, "(As, As) = 0 with s != 0 (A is singular)");
    // omega = (t, s) / (t, t);  x += alpha p_hat + omega s_hat;  r = s - omega t
    rho_old = rho;
    omega = ts / tt;
    ops.axpy(alpha, p_hat, ops.x);
    ops.axpy(omega, s_hat, ops.x);
    ops.axpy(-omega, t, r);
    // rr = (r, r) for the stopping test, rho = (r0, r) for the next step  (one reduction)
    const std::vector<double> rr_rho = ops.dots({{&r, &r}, {&r0, &r}});
    const double rr = rr_rho[0];
    rho = rr_rho[1];
    if (!monitor.check_finite(k, "(r, r)", rr) || !monitor.check_finite(k, "(r0, r)", rho)) return;
    monitor.record(k, std::sqrt(rr));
    if (monitor.reached(std::sqrt(rr))) {
      if (!confirm_or_restart(k)) return;
      continue;
    }
    if (omega == 0) return breakdown(k, "omega = (As, s) / (As, As) = 0");
  }
}

}  // namespace clkr::detail
