// Mixed-precision iterative refinement: residuals and updates in the outer precision, corrections
// from an inner Krylov solve in a lower precision.
#pragma once

#include "clkr/blas/blas.hpp"
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

}  // namespace clkr
