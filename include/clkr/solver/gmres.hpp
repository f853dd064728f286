// Restarted GMRES(m) for general (non-symmetric) matrices.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A x = b with GMRES(options.restart): Arnoldi by modified Gram-Schmidt on the device, the
// (m+1) x m Hessenberg least-squares problem by Givens rotations on the host in double.
SolveResult gmres(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});

}  // namespace clkr
