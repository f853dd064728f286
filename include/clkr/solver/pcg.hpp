// The conjugate gradient method with the Jacobi (diagonal) preconditioner, for SPD matrices.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A x = b with M = diag(A) in blas.precision() at blas.location(). Reports NotSpd without
// iterating when a diagonal entry is <= 0 (an SPD matrix has a positive diagonal), and during the
// iteration when p'Ap <= 0.
SolveResult pcg_jacobi(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});

}  // namespace clkr
