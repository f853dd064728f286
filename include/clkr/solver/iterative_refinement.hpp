// Mixed-precision iterative refinement: residuals and updates in the outer precision, corrections
// from an inner Krylov solve in a lower precision.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Outer loop in outer.precision(): r = b - A x, solve A d = r with options.inner_solver on `inner`
// to options.inner_relative_tolerance, x += d; stops when ||b - A x|| reaches the tolerance.
// `inner` and `outer` must share a context and location.
SolveResult iterative_refinement(Blas& outer, Blas& inner, Matrix& A, Vector& b, Vector& x,
                                 const SolveOptions& options = {});

}  // namespace clkr
