// Restarted GMRES(m) (Saad and Schultz 1986): Arnoldi with modified Gram-Schmidt on the device, the
// small Hessenberg least-squares problem by Givens rotations on the host in double. Preconditioned on
// the right (Arnoldi on A M^-1, x += M^-1 V y), so the residual minimised is b - A x itself; the
// flexible variant (FGMRES, Saad 1993) keeps z_j = M^-1 v_j and adds x += Z y, so M may change between
// applications.
//
// Why modified Gram-Schmidt: the Blas offers dot and axpy, one vector pair at a time. MGS costs, at
// Arnoldi step j, j+1 dots and j+1 axpys (5(j+1)n elements moved) and j+2 host round trips, since
// each coefficient h_ij = (w, v_i) is taken after the previous projection was subtracted. Classical
// Gram-Schmidt could queue its j+1 dots together (dot_async, one round trip) but loses
// orthogonality like cond(A)^2 * u, so it needs a second pass (CGS2): 3 round trips but twice the
// memory traffic. For the large sparse systems this library is for, memory traffic dominates and
// MGS (orthogonality lost like cond(A) * u, enough for GMRES's backward stability) is the better trade;
// on small systems where latency dominates, CGS2 with a fused multi-dot kernel would win.
#include "clkr/solver/gmres.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "clkr/runtime/error.hpp"
#include "hessenberg_least_squares.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace detail {

namespace {

// Memory moved per Arnoldi step j (0-based), n = rows, in elements of the Blas precision: the SpMV
// (the matrix once, v_j and w), j+1 dots and j+1 axpys (5(j+1)n), ||w|| n, v_{j+1} = w / h (copy and
// scale, 3n), and one application of M when preconditioned; at the end of a cycle of k steps,
// x += V y (3kn; then one more application of M, or x += Z y for FGMRES) and the restart residual
// (SpMV, copy, norm). The basis holds m+1 vectors of n elements, and FGMRES's Z m more.
void restarted_gmres(Blas& blas, Matrix& A, Preconditioner* M, bool flexible, Vector& b, Vector& x, bool x_is_zero,
                     const SolveOptions& options, SolveMonitor& monitor) {
  const int m = options.restart;
  const char* name = flexible ? "fgmres" : "gmres";
  if (m < 1) throw Error(std::string(name) + ": restart = " + std::to_string(m) + " must be >= 1");
  const auto& context = blas.context();
  const std::size_t n = b.size();
  std::vector<Vector> basis;
  basis.reserve(m + 1);
  for (int i = 0; i <= m; ++i) basis.emplace_back(context, n, std::string(name) + ".v" + std::to_string(i));
  Vector w(context, n, std::string(name) + ".w");
  HessenbergLeastSquares ls(m);
  // Right preconditioning: `t` holds M^-1 v_j (GMRES) or the cycle's V y before M^-1 (both from the one
  // vector), `z` the kept M^-1 v_j (FGMRES).
  const bool right = preconditioned(M);
  std::optional<Vector> t;
  std::vector<Vector> z;
  if (right && !flexible) t.emplace(context, n, "gmres.t");
  if (right && flexible) {
    z.reserve(m);
    for (int i = 0; i < m; ++i) z.emplace_back(context, n, "fgmres.z" + std::to_string(i));
  }

  int k = 0;                       // Arnoldi steps so far, over all cycles
  double previous_cycle_norm = 0;  // ||r|| at the start of the previous cycle
  for (bool first_cycle = true;; first_cycle = false) {
    // r = b - A x (explicitly at every restart);  beta = ||r||;  v_0 = r / beta
    Vector& v0 = basis[0];
    compute_residual(blas, A, b, x, v0, x_is_zero && first_cycle);
    const double beta = blas.nrm2(v0);
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
    blas.scal(1.0 / beta, v0);
    ls.reset(beta);

    int steps = 0;
    bool singular = false;
    for (int j = 0; j < m && k < options.max_iterations; ++j) {
      ++k;
      // w = A M^-1 v_j;  for i <= j: h_ij = (w, v_i), w -= h_ij v_i  (modified Gram-Schmidt)
      Vector* operand = &basis[j];
      if (right) {
        Vector& target = flexible ? z[j] : *t;
        M->apply(basis[j], target);
        operand = &target;
      }
      blas.spmv(1.0, A, *operand, 0.0, w);
      for (int i = 0; i <= j; ++i) {
        ls.h(i, j) = blas.dot(w, basis[i]);
        blas.axpy(-ls.h(i, j), basis[i], w);
      }
      // h_{j+1,j} = ||w||;  then rotate column j and update the residual estimate |g_{j+1}|
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
      // h_{j+1,j} = 0: the Krylov space is invariant and x + V y is exact (a "happy" breakdown).
      if (monitor.reached(estimate) || h_next == 0) break;
      // v_{j+1} = w / h_{j+1,j}
      blas.copy(w, basis[j + 1]);
      blas.scal(1.0 / h_next, basis[j + 1]);
    }
    // x += V y with R y = g (right-preconditioned: x += M^-1 (V y); flexible: x += Z y)
    const std::vector<double> y = ls.solve(steps);
    if (right && !flexible && steps > 0) {
      // w is free again: u = V y there, then x += M^-1 u through t.
      blas.copy(basis[0], w);
      blas.scal(y[0], w);
      for (int i = 1; i < steps; ++i) blas.axpy(y[i], basis[i], w);
      M->apply(w, *t);
      blas.axpy(1.0, *t, x);
    } else {
      for (int i = 0; i < steps; ++i) blas.axpy(y[i], flexible && right ? z[i] : basis[i], x);
    }
    if (singular) {
      monitor.finish(SolveStatus::Breakdown, "the Hessenberg matrix is singular at iteration " + std::to_string(k) +
                                                 " (A v is zero on the Krylov space: A is singular)");
      return;
    }
  }
}

}  // namespace

void gmres_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                const SolveOptions& options, SolveMonitor& monitor) {
  restarted_gmres(blas, A, M, false, b, x, x_is_zero, options, monitor);
}

void fgmres_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                 const SolveOptions& options, SolveMonitor& monitor) {
  restarted_gmres(blas, A, M, true, b, x, x_is_zero, options, monitor);
}

}  // namespace detail

SolveResult gmres(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("gmres", blas, A, nullptr, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::gmres_core(blas, A, nullptr, b, x, x_is_zero, options, monitor);
                             });
}

SolveResult gmres(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  if (M.variable())
    throw Error("gmres: the preconditioner " + M.description() +
                " changes between applications; right-preconditioned GMRES needs a fixed one (use fgmres)");
  return detail::run_checked("gmres", blas, A, &M, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::gmres_core(blas, A, &M, b, x, x_is_zero, options, monitor);
  });
}

SolveResult fgmres(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("fgmres", blas, A, &M, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::fgmres_core(blas, A, &M, b, x, x_is_zero, options, monitor);
  });
}

}  // namespace clkr
