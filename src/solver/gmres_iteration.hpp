// The restarted GMRES(m) / FGMRES(m) iteration, right-preconditioned, written once against the
// operations of `Ops` (DeviceKrylovOps on one device, DistKrylovOps over MPI ranks). The Arnoldi
// step's orthogonalization is Ops::orthogonalize: modified Gram-Schmidt on one device, classical
// Gram-Schmidt twice over ranks (one reduction per pass instead of one per basis vector).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"
#include "hessenberg_least_squares.hpp"
#include "solve_monitor.hpp"

namespace clkr::detail {

// Memory moved per Arnoldi step j (0-based), n = rows, in elements of the precision: the SpMV
// (the matrix once, v_j and w), the orthogonalization (MGS on one device: j+1 dots and j+1 axpys, 5(j+1)n), ||w|| n,
// v_{j+1} = w / h (copy and scale, 3n), and one application of M when preconditioned; at the end of a cycle of k steps,
// x += V y (3kn; then one more application of M, or x += Z y for FGMRES) and the restart residual
// (SpMV, copy, norm). The basis holds m+1 vectors of n elements, and FGMRES's Z m more.
template <class Ops>
void gmres_iteration(Ops& ops, bool flexible, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor) {
  using Vec = typename Ops::Vec;
  const int m = options.restart;
  const char* name = flexible ? "fgmres" : "gmres";
  if (m < 1) throw Error(std::string(name) + ": restart = " + std::to_string(m) + " must be >= 1");
  std::vector<Vec> basis;
  basis.reserve(m + 1);
  for (int i = 0; i <= m; ++i) basis.push_back(ops.vector(std::string(name) + ".v" + std::to_string(i)));
  Vec w = ops.vector(std::string(name) + ".w");
  HessenbergLeastSquares ls(m);
  // Right preconditioning: `t` holds M^-1 v_j (GMRES) or the cycle's V y before M^-1 (both from the one
  // vector), `z` the kept M^-1 v_j (FGMRES).
  const bool right = ops.preconditioned();
  std::optional<Vec> t;
  std::vector<Vec> z;
  if (right && !flexible) t.emplace(ops.vector("gmres.t"));
  if (right && flexible) {
    z.reserve(m);
    for (int i = 0; i < m; ++i) z.push_back(ops.vector("fgmres.z" + std::to_string(i)));
  }

  int k = 0;                       // Arnoldi steps so far, over all cycles
  double previous_cycle_norm = 0;  // ||r|| at the start of the previous cycle
  for (bool first_cycle = true;; first_cycle = false) {
    // r = b - A x (explicitly at every restart);  beta = ||r||;  v_0 = r / beta
    Vec& v0 = basis[0];
    ops.residual(v0, x_is_zero && first_cycle);
    const double beta = ops.nrm2(v0);
    if (!monitor.check_finite(k, "||r||", beta)) return;
    if (first_cycle) {
      monitor.record(0, beta);
      if (monitor.reached(beta)) {
        monitor.finish(SolveStatus::Converged, "the initial residual already meets the tolerance");
        return;
      }
    } else {
      // The last cycle's estimate reached the tolerance or the iterations ran out: the explicit
      // residual decides.
      if (monitor.reached(beta)) {
        monitor.check_explicit(k, beta);
        return;
      }
      if (beta >= previous_cycle_norm) {
        monitor.finish(SolveStatus::Stagnated,
                       "a restart cycle of GMRES(" + std::to_string(m) + ") did not reduce ||b - A x|| / ||b|| = " +
                           format_number(monitor.criterion().relative(beta)) + " at iteration " + std::to_string(k) +
                           ": restarting would repeat it (try a larger restart)");
        return;
      }
    }
    if (k >= options.max_iterations) return;
    previous_cycle_norm = beta;
    ops.scal(1.0 / beta, v0);
    ls.reset(beta);

    int steps = 0;
    bool singular = false;
    for (int j = 0; j < m && k < options.max_iterations; ++j) {
      ++k;
      // w = A M^-1 v_j;  for i <= j: h_ij = (w, v_i), w -= h_ij v_i  (Ops::orthogonalize)
      Vec* operand = &basis[j];
      if (right) {
        Vec& target = flexible ? z[j] : *t;
        ops.precondition(basis[j], target);
        operand = &target;
      }
      ops.multiply(*operand, w);
      ops.orthogonalize(basis, j, w, ls);
      // h_{j+1,j} = ||w||;  then rotate column j and update the residual estimate |g_{j+1}|
      const double h_next = ops.nrm2(w);
      ls.h(j + 1, j) = h_next;
      if (!monitor.check_finite(k, "h(j+1, j) = ||w||", h_next)) return;
      if (!ls.rotate_column(j)) {
        singular = true;
        break;
      }
      steps = j + 1;
      const double estimate = ls.residual_norm(steps);
      monitor.record(k, estimate);
      // h_{j+1,j} = 0: the Krylov space is invariant and x + V y is exact (a "happy" breakdown).
      if (monitor.reached(estimate) || h_next == 0) break;
      // v_{j+1} = w / h_{j+1,j}
      ops.copy(w, basis[j + 1]);
      ops.scal(1.0 / h_next, basis[j + 1]);
    }
    // x += V y with R y = g (right-preconditioned: x += M^-1 (V y); flexible: x += Z y)
    const std::vector<double> y = ls.solve(steps);
    if (right && !flexible && steps > 0) {
      // w is free again: u = V y there, then x += M^-1 u through t.
      ops.copy(basis[0], w);
      ops.scal(y[0], w);
      for (int i = 1; i < steps; ++i) ops.axpy(y[i], basis[i], w);
      ops.precondition(w, *t);
      ops.axpy(1.0, *t, ops.x);
    } else {
      for (int i = 0; i < steps; ++i) ops.axpy(y[i], flexible && right ? z[i] : basis[i], ops.x);
    }
    if (singular) {
      monitor.finish(SolveStatus::Breakdown, "the Hessenberg matrix is singular at iteration " + std::to_string(k) +
                                                 " (A v is zero on the Krylov space: A is singular)");
      return;
    }
  }
}

}  // namespace clkr::detail
