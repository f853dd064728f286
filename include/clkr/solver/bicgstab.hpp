// BiCGStab (van der Vorst) for general (non-symmetric) matrices.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A x = b in blas.precision() at blas.location(). Reports Breakdown when rho = (r0, r) or
// (r0, v) vanishes, or omega = 0.
SolveResult bicgstab(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});
// Right-preconditioned BiCGStab (A M^-1 y = b, x = M^-1 y): the residual it tracks and reports is
// b - A x itself.
SolveResult bicgstab(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options = {});

}  // namespace clkr
