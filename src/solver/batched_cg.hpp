// Batched CG: solve_many's path for CG (unpreconditioned or Jacobi) on a device with A in CSR. The k
// columns run as k independent CGs in lockstep (BatchedCgSteps), each with its own scalars, iteration
// count, convergence confirmation and result, as its separate solve would give them up to rounding.
#pragma once

#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/options.hpp"

namespace clkr::detail {

// Solves A X[j] = B[j] for every column (B and X of equal counts), in batches of at most
// BatchedCgSteps::kMaxColumns columns. M: the Jacobi preconditioner in blas's precision, or null.
// `solver` names the solver in errors ("cg", "pcg"). Every column is checked (as solve() checks it)
// before any iteration; a refused column throws clkr::Error and leaves X unsolved.
std::vector<SolveResult> batched_cg(const char* solver, Blas& blas, Matrix& A, Jacobi* M, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options);

}  // namespace clkr::detail
