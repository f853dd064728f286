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
// clkr::Error before any work; each column is then checked by solve() as it is reached, so an error in
// column j leaves the solutions of the columns before j in X.
std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options = {});
std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options = {});

}  // namespace clkr
