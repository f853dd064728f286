// The solver level's shared path: names, dispatch by kind, operand checks, and the true residual.
#include "clkr/solver/solve.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "../runtime/enum_names.hpp"
#include "clkr/runtime/error.hpp"
#include "equilibration.hpp"
#include "solver_core.hpp"

namespace clkr {

namespace {

const std::pair<SolverKind, const char*> solver_names[] = {
    {SolverKind::Cg, "cg"},         {SolverKind::Pcg, "pcg"},           {SolverKind::Gmres, "gmres"},
    {SolverKind::Fgmres, "fgmres"}, {SolverKind::BiCgStab, "bicgstab"}, {SolverKind::Ir, "ir"},
};

// ||v|| with long double accumulation, refusing NaN/Inf (naming the first).
double checked_norm(const char* solver, const char* name, const std::vector<double>& v) {
  long double sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw Error(std::string(solver) + ": " + name + "[" + std::to_string(i) + "] = " + detail::format_number(v[i]) +
                  " is not finite");
    }
    sum += static_cast<long double>(v[i]) * v[i];
  }
  return static_cast<double>(std::sqrt(sum));
}

void check_tolerance(const char* solver, const char* name, double value) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw Error(std::string(solver) + ": " + name + " = " + detail::format_number(value) +
                " must be a finite number >= 0");
  }
}

void check_operands(const char* solver, Blas& blas, Matrix& A, const Preconditioner* M, Vector& b, Vector& x,
                    const SolveOptions& options) {
  const std::string who = std::string(solver) + ": ";
  if (A.rows() != A.cols()) {
    throw Error(who + "the matrix is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ", not square");
  }
  if (b.size() != static_cast<std::size_t>(A.rows())) {
    throw Error(who + "b has " + std::to_string(b.size()) + " elements but A has " + std::to_string(A.rows()) +
                " rows");
  }
  if (x.size() != static_cast<std::size_t>(A.cols())) {
    throw Error(who + "x has " + std::to_string(x.size()) + " elements but A has " + std::to_string(A.cols()) +
                " columns");
  }
  if (&b == &x) throw Error(who + "b and x must be different vectors");
  if (A.context() != blas.context() || b.context() != blas.context() || x.context() != blas.context()) {
    throw Error(who + "A, b, x and the Blas object must live on the same context");
  }
  if (M) {
    if (M->context() != blas.context() || M->location() != blas.location())
      throw Error(who + "the preconditioner must live on the Blas object's context and location");
    if (M->rows() != A.rows())
      throw Error(who + "the preconditioner was built for " + std::to_string(M->rows()) + " rows, A has " +
                  std::to_string(A.rows()));
  }
  check_tolerance(solver, "relative_tolerance", options.relative_tolerance);
  check_tolerance(solver, "absolute_tolerance", options.absolute_tolerance);
  if (options.max_iterations < 0) {
    throw Error(who + "max_iterations = " + std::to_string(options.max_iterations) + " must be >= 0");
  }
  if (options.strengthen_check < 0)
    throw Error(who + "strengthen_check = " + std::to_string(options.strengthen_check) + " must be >= 0 (0: never)");
}

}  // namespace

std::string to_string(SolverKind kind) { return detail::enum_name(solver_names, kind, "SolverKind"); }

SolverKind parse_solver(const std::string& text) { return detail::parse_enum_name(solver_names, text, "solver"); }

std::string to_string(SolveStatus status) {
  switch (status) {
    case SolveStatus::Converged:
      return "converged";
    case SolveStatus::MaxIterations:
      return "max-iterations";
    case SolveStatus::NotSpd:
      return "not-spd";
    case SolveStatus::Breakdown:
      return "breakdown";
    case SolveStatus::NonFinite:
      return "non-finite";
    case SolveStatus::Stagnated:
      return "stagnated";
  }
  throw Error("unknown SolveStatus " + std::to_string(static_cast<int>(status)));
}

namespace {

SolveResult dispatch(SolverKind kind, Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  switch (kind) {
    case SolverKind::Cg:
      return cg(blas, A, b, x, options);
    case SolverKind::Pcg:
      return pcg_jacobi(blas, A, b, x, options);
    case SolverKind::Gmres:
    case SolverKind::Fgmres:  // without a preconditioner there is nothing to be flexible about
      return gmres(blas, A, b, x, options);
    case SolverKind::BiCgStab:
      return bicgstab(blas, A, b, x, options);
    case SolverKind::Ir: {
      Blas inner(blas.context(), blas.location(), options.inner_precision);
      return iterative_refinement(blas, inner, A, b, x, options);
    }
  }
  throw Error("solve: unknown SolverKind " + std::to_string(static_cast<int>(kind)));
}

SolveResult dispatch(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x,
                     const SolveOptions& options) {
  switch (kind) {
    case SolverKind::Cg:
      return cg(blas, A, M, b, x, options);
    case SolverKind::Gmres:
      return gmres(blas, A, M, b, x, options);
    case SolverKind::Fgmres:
      return fgmres(blas, A, M, b, x, options);
    case SolverKind::BiCgStab:
      return bicgstab(blas, A, M, b, x, options);
    case SolverKind::Pcg:
      throw Error("solve: pcg is CG with its own Jacobi preconditioner; pass a preconditioner to cg instead");
    case SolverKind::Ir: {
      Blas inner(blas.context(), blas.location(), options.inner_precision);
      return iterative_refinement(blas, inner, A, M, b, x, options);
    }
  }
  throw Error("solve: unknown SolverKind " + std::to_string(static_cast<int>(kind)));
}

// Runs `run(A', b', x')` on the system scaled into float's range when a single or quasi-double solve
// needs it (detail::plan_equilibration), else on A, b, x as they are. Operands that the solvers refuse
// (sizes, NaN) go through unscaled, so their errors stay the solvers' own.
template <class Run>
SolveResult equilibrated(Blas& blas, Matrix& A, bool may_scale_matrix, Vector& b, Vector& x,
                         const SolveOptions& options, Run&& run) {
  const auto n = static_cast<std::size_t>(A.rows());
  if (blas.precision() == Precision::Double || A.rows() != A.cols() || b.size() != n || x.size() != n || &b == &x)
    return run(A, b, x);
  const std::vector<double> bv = b.to_host();
  const detail::Equilibration plan = detail::plan_equilibration(A.host_csr(), bv, blas.precision(), may_scale_matrix);
  if (!plan.needed()) return run(A, b, x);
  const auto d = [&plan](std::size_t i) { return plan.d.empty() ? 1.0 : plan.d[i]; };
  std::vector<double> scaled(n);
  for (std::size_t i = 0; i < n; ++i) scaled[i] = bv[i] * d(i) * plan.b_scale;
  Vector b_scaled(A.context(), scaled, b.name()), x_scaled(A.context(), n, x.name());
  if (options.use_initial_guess) {
    const std::vector<double> xv = x.to_host();
    for (std::size_t i = 0; i < n; ++i) scaled[i] = xv[i] / d(i) * plan.b_scale;
    x_scaled.assign(scaled);
  }
  std::optional<Matrix> A_scaled;
  if (!plan.d.empty()) A_scaled.emplace(A.context(), detail::scaled_matrix(A.host_csr(), plan.d), A.format());
  SolveResult result = run(A_scaled ? *A_scaled : A, b_scaled, x_scaled);
  std::vector<double> solution = x_scaled.to_host();
  for (std::size_t i = 0; i < n; ++i) solution[i] *= d(i) / plan.b_scale;
  x.assign(solution);
  result.scaling = plan.description;
  result.true_relative_residual = true_relative_residual(A, b, x);
  return result;
}

}  // namespace

// A failing OpenCL call anywhere in a solve (a kernel launch, a transfer) ends it as a clkr::Error with the
// call and its error code, whichever level it happened at.
SolveResult solve(SolverKind kind, Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return translate_cl_errors(("solve (" + to_string(kind) + ")").c_str(), [&] {
    return equilibrated(blas, A, true, b, x, options,
                        [&](Matrix& As, Vector& bs, Vector& xs) { return dispatch(kind, blas, As, bs, xs, options); });
  });
}

SolveResult solve(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x,
                  const SolveOptions& options) {
  // M was built for A as it is: the matrix is not scaled under it (b may be: M is linear).
  return translate_cl_errors(("solve (" + to_string(kind) + ")").c_str(), [&] {
    return equilibrated(blas, A, !detail::preconditioned(&M), b, x, options, [&](Matrix& As, Vector& bs, Vector& xs) {
      return dispatch(kind, blas, As, M, bs, xs, options);
    });
  });
}

namespace detail {

SolverCore solver_core(SolverKind kind) {
  switch (kind) {
    case SolverKind::Cg:
      return cg_core;
    case SolverKind::Pcg:
      return pcg_jacobi_core;
    case SolverKind::Gmres:
      return gmres_core;
    case SolverKind::Fgmres:
      return fgmres_core;
    case SolverKind::BiCgStab:
      return bicgstab_core;
    case SolverKind::Ir:
      break;
  }
  throw Error("solver '" + to_string(kind) +
              "' cannot serve as a Krylov core (iterative refinement "
              "needs an inner solver: cg, pcg, gmres, fgmres or bicgstab)");
}

void set_zero(Blas& blas, Vector& x) {
  if (x.size() == 0) return;
  if (blas.location() == Location::Device) {
    x.fill(0.0, blas.precision());
  } else {
    x.assign(std::vector<double>(x.size(), 0.0));
  }
}

void compute_residual(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, bool x_is_zero) {
  blas.copy(b, r);
  if (!x_is_zero) blas.spmv(-1.0, A, x, 1.0, r);
}

double check_and_prepare(const char* solver, Blas& blas, Matrix& A, const Preconditioner* M, Vector& b, Vector& x,
                         const SolveOptions& options) {
  check_operands(solver, blas, A, M, b, x, options);
  // One host copy of b: it is checked for NaN/Inf and gives ||b|| exactly (long double sums), so
  // the tolerance does not depend on the solver's precision.
  const double b_norm = checked_norm(solver, "b", b.to_host());
  if (options.use_initial_guess) checked_norm(solver, "x (the initial guess)", x.to_host());
  if (b_norm == 0 || !options.use_initial_guess) set_zero(blas, x);
  return b_norm;
}

void finish_zero_rhs(SolveMonitor& monitor) {
  monitor.record(0, 0.0);
  monitor.finish(SolveStatus::Converged, "b = 0: the solution is x = 0");
}

void finish_result(SolveMonitor& monitor, Matrix& A, Vector& b, Vector& x) {
  SolveResult& result = monitor.result();
  result.seconds = monitor.seconds();
  const double b_norm = monitor.criterion().b_norm();
  result.true_relative_residual = b_norm == 0 ? 0.0 : true_relative_residual(A, b, x);
}

SolveResult run_checked(const char* solver, Blas& blas, Matrix& A, const Preconditioner* M, Vector& b, Vector& x,
                        const SolveOptions& options, const Iterate& iterate) {
  const double b_norm = check_and_prepare(solver, blas, A, M, b, x, options);
  SolveResult result;
  SolveMonitor monitor(options, b_norm, result);
  if (b_norm == 0) {
    finish_zero_rhs(monitor);
  } else {
    iterate(!options.use_initial_guess, monitor);
    monitor.finish_if_running();
  }
  finish_result(monitor, A, b, x);
  return result;
}

}  // namespace detail
}  // namespace clkr
