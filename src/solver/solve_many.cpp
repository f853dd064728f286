// solve_many: CG (unpreconditioned or Jacobi) on a device with A in CSR runs the columns as one batched
// CG (batched_cg.cpp: k independent CGs in lockstep, the matrix read once per iteration for all);
// everything else runs the columns one after another on the shared setup. Either way each column is a
// Krylov solve of its own (its own scalars, iteration count and status), so a hard column does not hold
// back the others' results.
#include "clkr/solver/solve_many.hpp"

#include <optional>
#include <string>

#include "batched_cg.hpp"
#include "batched_cg_steps.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"
#include "equilibration.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace {

void check_counts(const std::vector<Vector>& B, const std::vector<Vector>& X) {
  if (B.size() != X.size())
    throw Error("solve_many: B has " + std::to_string(B.size()) + " columns but X has " + std::to_string(X.size()));
}

// The batched CG runs A and the columns as they are: a single or quasi-double system that solve()
// would scale into float's range (detail::plan_equilibration) takes the column loop, which does.
bool within_float_range(const Blas& blas, Matrix& A, const std::vector<Vector>& B, bool may_scale_matrix) {
  if (blas.precision() == Precision::Double) return true;
  for (const Vector& b : B)
    if (b.size() == static_cast<std::size_t>(A.rows()) &&
        detail::plan_equilibration(A.host_csr(), b.to_host(), blas.precision(), may_scale_matrix).needed())
      return false;
  return true;
}

// Where the batched CG applies (besides the solver kind and the preconditioner).
bool batchable(const Blas& blas, Matrix& A, const std::vector<Vector>& B, const SolveOptions& options,
               bool may_scale_matrix) {
  return options.batch_columns && B.size() >= 2 &&
         (options.cg_path == CgPath::Auto || options.cg_path == CgPath::Fused) &&
         detail::batched_cg_supported(blas, A, B.size()) && within_float_range(blas, A, B, may_scale_matrix);
}

}  // namespace

std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options) {
  check_counts(B, X);
  if (kind == SolverKind::Cg && batchable(blas, A, B, options, true))
    return translate_cl_errors("solve_many (batched cg)",
                               [&] { return detail::batched_cg("cg", blas, A, nullptr, B, X, options); });
  if (kind == SolverKind::Pcg && batchable(blas, A, B, options, true)) {
    // pcg_jacobi's own Jacobi, built once; a diagonal entry <= 0 is left to the column loop, where each
    // column reports it (NotSpd) as its separate solve does.
    std::optional<Jacobi> jacobi;
    double value = 0;
    const std::int64_t bad = translate_cl_errors(
        "solve_many (batched pcg)", [&] { return detail::make_positive_jacobi(blas, A, false, jacobi, &value); });
    if (bad < 0)
      return translate_cl_errors("solve_many (batched pcg)",
                                 [&] { return detail::batched_cg("pcg", blas, A, &*jacobi, B, X, options); });
  }
  std::vector<SolveResult> results;
  results.reserve(B.size());
  for (std::size_t j = 0; j < B.size(); ++j) results.push_back(solve(kind, blas, A, B[j], X[j], options));
  return results;
}

std::vector<SolveResult> solve_many(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options) {
  check_counts(B, X);
  // The fused Jacobi step reads M's 1 / diag(A) as the CG's own vectors: only in the Blas's precision.
  auto* jacobi = dynamic_cast<Jacobi*>(&M);
  if (kind == SolverKind::Cg && jacobi && M.precision() == blas.precision() && M.location() == blas.location() &&
      M.context() == blas.context() && batchable(blas, A, B, options, false))
    return translate_cl_errors("solve_many (batched cg)",
                               [&] { return detail::batched_cg("cg", blas, A, jacobi, B, X, options); });
  std::vector<SolveResult> results;
  results.reserve(B.size());
  for (std::size_t j = 0; j < B.size(); ++j) results.push_back(solve(kind, blas, A, M, B[j], X[j], options));
  return results;
}

}  // namespace clkr
