// Internal interface of the distributed solvers: the iterations (on operands dist_solve already
// checked) and the pieces they share. Every branch they take depends only on reduced values, which
// are the same on every rank, so the ranks stay in step through the reductions and exchanges.
#pragma once

#include "../solver/solver_core.hpp"
#include "clkr/dist/dist_solve.hpp"

namespace clkr::detail {

// One distributed iteration: x holds the start (zero when x_is_zero); M is null or a block-Jacobi
// preconditioner (already checked against A).
struct DistProblem {
  DistBlas& blas;
  DistMatrix& A;
  Preconditioner* M;
  DistVector& b;
  DistVector& x;
};

void dist_cg_classic(DistProblem& problem, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor);
void dist_cg_single_reduction(DistProblem& problem, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor);
void dist_bicgstab(DistProblem& problem, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor);
void dist_gmres(DistProblem& problem, bool flexible, bool x_is_zero, const SolveOptions& options,
                SolveMonitor& monitor);

// r = b - A x (r = b when x_is_zero).
void dist_residual(DistProblem& problem, DistVector& r, bool x_is_zero);
// A zero vector on x's partition, device and communicator.
DistVector dist_zeros(const DistVector& like, const std::string& name);
// z = M^-1 r, or z = r without a preconditioner.
void dist_precondition(DistProblem& problem, DistVector& r, DistVector& z);

}  // namespace clkr::detail
