// Distributed BiCGStab (van der Vorst 1992), right-preconditioned with a block-Jacobi M: the
// iteration of src/solver/bicgstab.cpp with its dot products reduced over the ranks, the ones the
// algorithm allows taken together (three MPI_Allreduce per iteration: (r0, v); (s, s), (t, s), (t, t);
// (r, r), (r0, r)).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "dist_solver_core.hpp"

namespace clkr::detail {

void dist_bicgstab(DistProblem& problem, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor) {
  DistBlas& blas = problem.blas;
  DistMatrix& A = problem.A;
  DistVector r = dist_zeros(problem.b, "bicgstab.r"), r0 = dist_zeros(problem.b, "bicgstab.r0");
  DistVector p = dist_zeros(problem.b, "bicgstab.p"), v = dist_zeros(problem.b, "bicgstab.v");
  DistVector t = dist_zeros(problem.b, "bicgstab.t");
  // Right preconditioning: p_hat = M^-1 p and s_hat = M^-1 s are what A multiplies and x gathers;
  // without M they are p and s (s lives in r) themselves.
  std::optional<DistVector> p_store, s_store;
  if (problem.M) {
    p_store.emplace(dist_zeros(problem.b, "bicgstab.p_hat"));
    s_store.emplace(dist_zeros(problem.b, "bicgstab.s_hat"));
  }
  DistVector& p_hat = problem.M ? *p_store : p;
  DistVector& s_hat = problem.M ? *s_store : r;

  dist_residual(problem, r, x_is_zero);
  blas.copy(r, r0);
  double rho = blas.dot(r, r);
  if (!monitor.record_start("r'r", rho, std::sqrt(rho))) return;
  const auto breakdown = [&](int k, const std::string& what) {
    monitor.finish(SolveStatus::Breakdown, what + " at iteration " + std::to_string(k) + ": BiCGStab breaks down");
  };
  // After an explicit residual check that did not confirm convergence, the iteration starts afresh
  // from r = b - A x with r0 = r. Returns false when the solve ended.
  bool fresh = true;
  const auto confirm_or_restart = [&](int k) {
    dist_residual(problem, r, false);
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
      blas.copy(r, p);  // p = r
    } else {
      // p = r + (rho / rho_old) (alpha / omega) (p - omega v)
      blas.axpy(-omega, v, p);
      blas.aypx((rho / rho_old) * (alpha / omega), r, p);
    }
    fresh = false;
    // p_hat = M^-1 p;  v = A p_hat;  alpha = rho / (r0, v)
    dist_precondition(problem, p, p_hat);
    blas.spmv(1.0, A, p_hat, 0.0, v);
    const double r0v = blas.dot(r0, v);
    if (!monitor.check_finite(k, "(r0, Ap)", r0v)) return;
    if (r0v == 0) return breakdown(k, "(r0, Ap) = 0");
    alpha = rho / r0v;
    // s = r - alpha v (in r);  s_hat = M^-1 s;  t = A s_hat;  (s, s), (t, s), (t, t)
    blas.axpy(-alpha, v, r);
    dist_precondition(problem, r, s_hat);
    blas.spmv(1.0, A, s_hat, 0.0, t);
    const std::vector<double> sts = blas.dots({{&r, &r}, {&t, &r}, {&t, &t}});
    const double ss = sts[0], ts = sts[1], tt = sts[2];
    if (!monitor.check_finite(k, "(s, s)", ss) || !monitor.check_finite(k, "(t, s)", ts) ||
        !monitor.check_finite(k, "(t, t)", tt))
      return;
    if (monitor.reached(std::sqrt(ss))) {
      // Converged half way: x += alpha p_hat.
      blas.axpy(alpha, p_hat, problem.x);
      monitor.record(k, std::sqrt(ss));
      if (!confirm_or_restart(k)) return;
      continue;
    }
    if (tt == 0) return breakdown(k, "(As, As) = 0 with s != 0 (A is singular)");
    // omega = (t, s) / (t, t);  x += alpha p_hat + omega s_hat;  r = s - omega t
    rho_old = rho;
    omega = ts / tt;
    blas.axpy(alpha, p_hat, problem.x);
    blas.axpy(omega, s_hat, problem.x);
    blas.axpy(-omega, t, r);
    // (r, r) for the stopping test, rho = (r0, r) for the next step
    const std::vector<double> rr_rho = blas.dots({{&r, &r}, {&r0, &r}});
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
