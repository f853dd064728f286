// Reliable-update mixed-precision CG: the RefinementScheme::ReliableUpdate core of iterative refinement.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"
#include "solve_monitor.hpp"

namespace clkr::detail {

// CG iterating in inner.precision() with x accumulated in outer.precision(), the residual replaced by
// b - A x from the outer precision whenever the inner one has dropped by options.reliable_update_delta
// (see reliable_update_cg.cpp); PCG when M is given (not the identity), M applied to the inner
// residual. x holds the start (zero when x_is_zero); `monitor` is the outer solve's: one record per
// reliable update, inner iterations summed into its result.
void reliable_update_cg(Blas& outer, Blas& inner, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                        const SolveOptions& options, SolveMonitor& monitor);

}  // namespace clkr::detail
