// solve_many: the columns one after another on the shared setup. Each column is a complete Krylov
// solve of its own (its own iteration count and status), so a hard column does not hold back the others.
#include "clkr/solver/solve_many.hpp"

#include <string>

#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"

namespace clkr {
namespace {

void check_counts(const std::vector<Vector>& B, const std::vector<Vector>& X) {
  if (B.size() != X.size())
    throw Error("solve_many: B has " + std::to_string(B.size()) + " columns but X has " + std::to_string(X.size()));
}

}  // namespace

std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options) {
  check_counts(B, X);
  std::vector<SolveResult> results;
  results.reserve(B.size());
  for (std::size_t j = 0; j < B.size(); ++j) results.push_back(solve(kind, blas, A, B[j], X[j], options));
  return results;
}

std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options) {
  check_counts(B, X);
  std::vector<SolveResult> results;
  results.reserve(B.size());
  for (std::size_t j = 0; j < B.size(); ++j) results.push_back(solve(kind, blas, A, M, B[j], X[j], options));
  return results;
}

}  // namespace clkr
