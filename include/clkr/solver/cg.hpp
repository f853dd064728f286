// The conjugate gradient method without a preconditioner (as the CUKr thesis ran it), for SPD matrices.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A x = b in blas.precision() at blas.location(). Reports NotSpd when p'Ap <= 0.
SolveResult cg(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});

}  // namespace clkr
