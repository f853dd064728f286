// Mixed-precision iterative refinement (Wilkinson; Moler 1967; on GPUs Goddeke et al. and the CUKr
// thesis): the residual and the update in the outer precision, the correction from a cheaper inner
// Krylov solve in a lower precision. Two schemes: restarted (here) and reliable-update CG
// (reliable_update_cg.cpp), which keeps the inner Krylov space across outer steps.
#include "clkr/solver/iterative_refinement.hpp"

#include <string>
#include <utility>

#include "../runtime/enum_names.hpp"
#include "clkr/runtime/error.hpp"
#include "reliable_update_cg.hpp"
#include "solver_core.hpp"

namespace clkr {

namespace {

const std::pair<RefinementScheme, const char*> scheme_names[] = {
    {RefinementScheme::Auto, "auto"},
    {RefinementScheme::Restarted, "restarted"},
    {RefinementScheme::ReliableUpdate, "reliable"},
};

// Checks what only refinement needs and returns the inner solver's core.
detail::SolverCore check_inner(Blas& outer, Blas& inner, const SolveOptions& options) {
  if (inner.context() != outer.context() || inner.location() != outer.location()) {
    throw Error("iterative_refinement: the inner and outer Blas objects must share a context and a location");
  }
  const double tol = options.inner_relative_tolerance;
  if (!(tol > 0 && tol < 1)) {
    throw Error("iterative_refinement: inner_relative_tolerance = " + detail::format_number(tol) +
                " must lie in (0, 1)");
  }
  if (options.inner_max_iterations < 1) {
    throw Error("iterative_refinement: inner_max_iterations = " + std::to_string(options.inner_max_iterations) +
                " must be >= 1");
  }
  const double delta = options.reliable_update_delta;
  if (!(delta > 0 && delta < 1)) {
    throw Error("iterative_refinement: reliable_update_delta = " + detail::format_number(delta) +
                " must lie in (0, 1)");
  }
  if (options.refinement == RefinementScheme::ReliableUpdate && options.inner_solver != SolverKind::Cg) {
    throw Error("iterative_refinement: the reliable-update scheme runs CG inside, but inner_solver is " +
                to_string(options.inner_solver) + " (use RefinementScheme::Restarted for it)");
  }
  return detail::solver_core(options.inner_solver);
}

// The outer loop. Each outer step moves, n = rows, in the outer precision: x += d (3n, plus d
// converted from the inner precision, n), r = b - A x (a copy 2n and an SpMV), ||r|| (n); r is
// converted once to the inner precision (n) and the inner solve moves what its solver moves, in the
// inner precision. One host round trip per outer step (||r||) besides the inner solver's.
void refine(Blas& outer, Blas& inner, detail::SolverCore inner_core, Matrix& A, Preconditioner* M, Vector& b, Vector& x,
            bool x_is_zero, const SolveOptions& options, detail::SolveMonitor& monitor) {
  SolveOptions inner_options;
  inner_options.relative_tolerance = options.inner_relative_tolerance;
  inner_options.max_iterations = options.inner_max_iterations;
  inner_options.restart = options.restart;
  const std::string inner_name = to_string(options.inner_solver) + " in " + to_string(inner.precision());
  const std::size_t n = b.size();
  Vector r(outer.context(), n, "ir.r"), d(outer.context(), n, "ir.d");

  // r = b - A x;  ||r||  (outer precision)
  detail::compute_residual(outer, A, b, x, r, x_is_zero);
  double r_norm = outer.nrm2(r);
  if (!monitor.check_finite(0, "||r||", r_norm)) return;
  monitor.record(0, r_norm);
  for (int k = 1; k <= options.max_iterations && !monitor.reached(r_norm); ++k) {
    // A d = r solved to inner_relative_tolerance in the inner precision (r converted lazily).
    SolveResult inner_result;
    detail::SolveMonitor inner_monitor(inner_options, r_norm, inner_result);
    detail::set_zero(inner, d);
    inner_core(inner, A, M, r, d, true, inner_options, inner_monitor);
    inner_monitor.finish_if_running();
    monitor.result().inner_iterations += inner_result.iterations;
    if (inner_result.status == SolveStatus::NotSpd || inner_result.status == SolveStatus::NonFinite) {
      monitor.finish(inner_result.status,
                     "inner " + inner_name + " at outer step " + std::to_string(k) + ": " + inner_result.message);
      return;
    }
    // x += d;  r = b - A x;  ||r||  (outer precision; d converted lazily). An inner solve that
    // stopped short (max iterations, breakdown, stagnation) may still have improved x: the outer
    // residual judges.
    outer.axpy(1.0, d, x);
    detail::compute_residual(outer, A, b, x, r, false);
    const double new_norm = outer.nrm2(r);
    if (!monitor.check_finite(k, "||r||", new_norm)) return;
    monitor.record(k, new_norm);
    if (new_norm >= r_norm && !monitor.reached(new_norm)) {
      monitor.finish(SolveStatus::Stagnated,
                     "outer step " + std::to_string(k) + " did not reduce ||b - A x|| / ||b|| = " +
                         detail::format_number(monitor.criterion().relative(new_norm)) + " (inner " + inner_name +
                         ": " + to_string(inner_result.status) +
                         "): the inner precision cannot resolve this system, or the tolerance is below "
                         "the outer precision's floor");
      return;
    }
    r_norm = new_norm;
  }
  if (monitor.reached(r_norm)) {
    monitor.finish(SolveStatus::Converged,
                   "||b - A x|| / ||b|| = " + detail::format_number(monitor.criterion().relative(r_norm)) +
                       " reached the tolerance");
  }
}

}  // namespace

std::string to_string(RefinementScheme scheme) { return detail::enum_name(scheme_names, scheme, "RefinementScheme"); }

RefinementScheme parse_refinement(const std::string& text) {
  return detail::parse_enum_name(scheme_names, text, "refinement scheme");
}

RefinementScheme resolved_refinement(const SolveOptions& options) {
  if (options.refinement != RefinementScheme::Auto) return options.refinement;
  return options.inner_solver == SolverKind::Cg ? RefinementScheme::ReliableUpdate : RefinementScheme::Restarted;
}

namespace {

SolveResult run_refinement(Blas& outer, Blas& inner, Matrix& A, Preconditioner* M, Vector& b, Vector& x,
                           const SolveOptions& options) {
  const detail::SolverCore inner_core = check_inner(outer, inner, options);
  const bool reliable = resolved_refinement(options) == RefinementScheme::ReliableUpdate;
  return detail::run_checked("iterative_refinement", outer, A, M, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               if (reliable) {
                                 detail::reliable_update_cg(outer, inner, A, M, b, x, x_is_zero, options, monitor);
                               } else {
                                 refine(outer, inner, inner_core, A, M, b, x, x_is_zero, options, monitor);
                               }
                             });
}

}  // namespace

SolveResult iterative_refinement(Blas& outer, Blas& inner, Matrix& A, Vector& b, Vector& x,
                                 const SolveOptions& options) {
  return run_refinement(outer, inner, A, nullptr, b, x, options);
}

SolveResult iterative_refinement(Blas& outer, Blas& inner, Matrix& A, Preconditioner& M, Vector& b, Vector& x,
                                 const SolveOptions& options) {
  // The identity is no preconditioner, in whatever precision it was made.
  if (!detail::preconditioned(&M)) return run_refinement(outer, inner, A, nullptr, b, x, options);
  // The reliable scheme runs PCG; the restarted one hands M to each inner solve, where pcg would put
  // its own Jacobi in its place.
  if (resolved_refinement(options) == RefinementScheme::ReliableUpdate && !M.symmetric())
    throw Error("iterative_refinement: the preconditioner " + M.description() +
                " is not symmetric; the reliable-update scheme runs CG (use RefinementScheme::Restarted with "
                "gmres, fgmres or bicgstab inside)");
  if (options.inner_solver == SolverKind::Pcg)
    throw Error(
        "iterative_refinement: inner_solver pcg is CG with its own Jacobi preconditioner; with a preconditioner "
        "of your own, use cg inside");
  if (M.precision() != inner.precision())
    throw Error("iterative_refinement: the preconditioner computes in " + to_string(M.precision()) +
                ", the inner solver in " + to_string(inner.precision()) +
                ": build it in the inner precision (PrecondOptions::precision), where the iterations run");
  return run_refinement(outer, inner, A, &M, b, x, options);
}

}  // namespace clkr
