// Mixed-precision iterative refinement: residuals and updates in the outer precision, corrections
// from an inner Krylov solve in a lower precision.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Stops when ||b - A x||, computed in outer.precision(), reaches the tolerance. The scheme is
// resolved_refinement(options):
// - Restarted: each outer step computes r = b - A x, solves A d = r with options.inner_solver on
//   `inner` to options.inner_relative_tolerance, and adds x += d.
// - ReliableUpdate: one CG on `inner` whose residual is replaced by b - A x from the outer precision
//   whenever it has dropped by options.reliable_update_delta; x accumulates in outer.precision().
// `inner` and `outer` must share a context and location.
SolveResult iterative_refinement(Blas& outer, Blas& inner, Matrix& A, Vector& b, Vector& x,
                                 const SolveOptions& options = {});

// The same with a preconditioner M (built for A on the shared context and location, in the inner
// precision: it works where the inner iteration does; make it with `inner`, or with
// PrecondOptions::precision = inner.precision()):
// - ReliableUpdate: PCG in the inner precision (M must be symmetric), its residual replaced as above;
//   the update restores PCG's r'p = r'z (z of the last recursive residual where the new one is like
//   it, else M^-1 r afresh: reliable_update_cg.cpp). Every byte an iteration
//   moves is then in the inner precision, M's included: a single-precision hierarchy inside a double
//   solve, where CG with the same M would still move its own vectors and A in double.
// - Restarted: each inner solve (options.inner_solver: cg, gmres, fgmres or bicgstab) takes M; pcg,
//   which is CG with its own Jacobi, is refused.
// A mixed solve does not ask M to strengthen itself (SolveOptions::strengthen_check does not apply).
SolveResult iterative_refinement(Blas& outer, Blas& inner, Matrix& A, Preconditioner& M, Vector& b, Vector& x,
                                 const SolveOptions& options = {});

}  // namespace clkr
