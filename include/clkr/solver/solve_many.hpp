// Several right-hand sides, A X = B, with one setup: the Blas, the matrix's device copy and the
// preconditioner are built once and serve every column (what a simulator with k load cases or k
// time-step stages wants instead of k complete solves).
#pragma once

#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A X[j] = B[j] for every column j, one result each, in column order. X[j] follows
// options.use_initial_guess like x in solve(). B and X of different counts are refused with
// clkr::Error before any work.
// CG (SolverKind::Cg without a preconditioner or with a clkr::Jacobi in the Blas's precision, and
// SolverKind::Pcg) on a device with A in CSR and at least 2 columns runs as a batched CG: the columns
// are k independent CGs in lockstep, each with its own scalars, iteration count, convergence check and
// result (what its separate solve gives, up to rounding), while the SpMV reads the matrix once per
// iteration for all of them (options.batch_columns = false turns this off). Every column is checked
// before any iteration there, and a column's `seconds` run from the start of the call to its end.
// Otherwise the columns run one after another, each checked by solve() as it is reached, so an error
// in column j leaves the solutions of the columns before j in X.
std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options = {});
std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options = {});

}  // namespace clkr
