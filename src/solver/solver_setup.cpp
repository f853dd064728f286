// SolverSetup: the Blas and the preconditioner of a SolverPlan built once for a matrix, refreshed after
// new values, and the solves of one or several right-hand sides on them.
#include "clkr/solver/solver_setup.hpp"

#include <chrono>

#include "clkr/solver/solve_many.hpp"

namespace clkr {

SolverSetup::SolverSetup(std::shared_ptr<Matrix> A, SolverPlan plan) : matrix_(std::move(A)), plan_(std::move(plan)) {
  const auto start = std::chrono::steady_clock::now();
  blas_ = std::make_unique<Blas>(matrix_->context(), plan_.backend, plan_.precision);
  if (plan_.precond.kind != PrecondKind::None) preconditioner_ = make_preconditioner(*blas_, *matrix_, plan_.precond);
  matrix_->context()->finish();
  setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SolverSetup::~SolverSetup() = default;

void SolverSetup::update() {
  if (preconditioner_) preconditioner_->update(*matrix_);
}

std::vector<SolveResult> SolverSetup::solve(std::vector<Vector>& B, std::vector<Vector>& X, bool use_initial_guess) {
  SolveOptions options = plan_.options;
  options.use_initial_guess = use_initial_guess;
  return preconditioner_ ? solve_many(plan_.kind, *blas_, *matrix_, *preconditioner_, B, X, options)
                         : solve_many(plan_.kind, *blas_, *matrix_, B, X, options);
}

std::string SolverSetup::description() const {
  const std::string precision = plan_.kind == SolverKind::Ir
                                    ? "mixed (" + to_string(plan_.precision) + " outer, " +
                                          to_string(plan_.options.inner_precision) + " inner, " +
                                          to_string(plan_.options.inner_solver) + " inside)"
                                    : to_string(plan_.precision);
  return to_string(plan_.kind) + (preconditioner_ ? " with " + preconditioner_->description() : "") + " in " +
         precision +
         (plan_.backend == Location::Host ? " on the host backend" : " on " + matrix_->context()->info().summary());
}

}  // namespace clkr
