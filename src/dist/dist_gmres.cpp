// Distributed restarted GMRES(m) and FGMRES(m), right-preconditioned with a block-Jacobi M. Arnoldi
// orthogonalizes by classical Gram-Schmidt applied twice (CGS2) rather than the modified Gram-Schmidt
// of the single-device GMRES: MGS needs one reduction per basis vector (j + 2 per step, each a
// latency across every rank), CGS2 three per step whatever j is (the j + 1 projections, again for the
// second pass, then ||w||), at twice MGS's memory traffic for the projections; its orthogonality is as
// good as MGS's (Giraud, Langou and Rozloznik 2005). The small least-squares problem is solved on every
// rank alike from the reduced values.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../solver/hessenberg_least_squares.hpp"
#include "dist_solver_core.hpp"

namespace clkr::detail {
namespace {

// w -= V h over basis[0..j], and h = V'w before it, in one reduction; returns h.
std::vector<double> project_out(DistBlas& blas, std::vector<DistVector>& basis, int j, DistVector& w) {
  std::vector<std::pair<DistVector*, DistVector*>> pairs;
  for (int i = 0; i <= j; ++i) pairs.emplace_back(&w, &basis[i]);
  const std::vector<double> h = blas.dots(pairs);
  for (int i = 0; i <= j; ++i) blas.axpy(-h[i], basis[i], w);
  return h;
}

}  // namespace

void dist_gmres(DistProblem& problem, bool flexible, bool x_is_zero, const SolveOptions& options,
                SolveMonitor& monitor) {
  DistBlas& blas = problem.blas;
  const int m = options.restart;
  const std::string name = flexible ? "fgmres" : "gmres";
  std::vector<DistVector> basis;
  basis.reserve(m + 1);
  for (int i = 0; i <= m; ++i) basis.push_back(dist_zeros(problem.b, name + ".v" + std::to_string(i)));
  DistVector w = dist_zeros(problem.b, name + ".w");
  HessenbergLeastSquares ls(m);
  // Right preconditioning: `t` holds M^-1 v_j (GMRES) or M^-1 (V y) at the end of a cycle, `z` the
  // kept M^-1 v_j (FGMRES).
  const bool right = problem.M != nullptr;
  std::optional<DistVector> t;
  std::vector<DistVector> z;
  if (right && !flexible) t.emplace(dist_zeros(problem.b, "gmres.t"));
  if (right && flexible)
    for (int i = 0; i < m; ++i) z.push_back(dist_zeros(problem.b, "fgmres.z" + std::to_string(i)));

  int k = 0;
  double previous_cycle_norm = 0;
  for (bool first_cycle = true;; first_cycle = false) {
    // r = b - A x at every restart;  beta = ||r||;  v_0 = r / beta
    dist_residual(problem, basis[0], x_is_zero && first_cycle);
    const double beta = blas.nrm2(basis[0]);
    if (!monitor.check_finite(k, "||r||", beta)) return;
    if (first_cycle) {
      monitor.record(0, beta);
      if (monitor.reached(beta)) {
        monitor.finish(SolveStatus::Converged, "the initial residual already meets the tolerance");
        return;
      }
    } else {
      if (monitor.reached(beta)) {
        monitor.check_explicit(k, beta);
        return;
      }
      if (beta >= previous_cycle_norm) {
        monitor.finish(
            SolveStatus::Stagnated,
            "a restart cycle of " + name + "(" + std::to_string(m) +
                ") did not reduce ||b - A x|| / ||b|| = " + format_number(monitor.criterion().relative(beta)) +
                " at iteration " + std::to_string(k) + ": restarting would repeat it (try a larger restart)");
        return;
      }
    }
    if (k >= options.max_iterations) return;
    previous_cycle_norm = beta;
    blas.scal(1.0 / beta, basis[0]);
    ls.reset(beta);

    int steps = 0;
    bool singular = false;
    for (int j = 0; j < m && k < options.max_iterations; ++j) {
      ++k;
      // w = A M^-1 v_j;  h_ij = (w, v_i) by CGS2;  h_{j+1,j} = ||w||
      DistVector* operand = &basis[j];
      if (right) {
        DistVector& target = flexible ? z[j] : *t;
        blas.apply(*problem.M, basis[j], target);
        operand = &target;
      }
      blas.spmv(1.0, problem.A, *operand, 0.0, w);
      const std::vector<double> h = project_out(blas, basis, j, w);
      const std::vector<double> h2 = project_out(blas, basis, j, w);
      for (int i = 0; i <= j; ++i) ls.h(i, j) = h[i] + h2[i];
      const double h_next = blas.nrm2(w);
      ls.h(j + 1, j) = h_next;
      if (!monitor.check_finite(k, "h(j+1, j) = ||w||", h_next)) return;
      if (!ls.rotate_column(j)) {
        singular = true;
        break;
      }
      steps = j + 1;
      const double estimate = ls.residual_norm(steps);
      monitor.record(k, estimate);
      if (monitor.reached(estimate) || h_next == 0) break;
      // v_{j+1} = w / h_{j+1,j}
      blas.copy(w, basis[j + 1]);
      blas.scal(1.0 / h_next, basis[j + 1]);
    }
    // x += V y with R y = g (GMRES with M: x += M^-1 (V y); FGMRES: x += Z y)
    const std::vector<double> y = ls.solve(steps);
    if (right && !flexible && steps > 0) {
      blas.copy(basis[0], w);
      blas.scal(y[0], w);
      for (int i = 1; i < steps; ++i) blas.axpy(y[i], basis[i], w);
      blas.apply(*problem.M, w, *t);
      blas.axpy(1.0, *t, problem.x);
    } else {
      for (int i = 0; i < steps; ++i) blas.axpy(y[i], flexible && right ? z[i] : basis[i], problem.x);
    }
    if (singular) {
      monitor.finish(SolveStatus::Breakdown, "the Hessenberg matrix is singular at iteration " + std::to_string(k) +
                                                 " (A v is zero on the Krylov space: A is singular)");
      return;
    }
  }
}

}  // namespace clkr::detail
