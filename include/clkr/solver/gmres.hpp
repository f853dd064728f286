// Restarted GMRES(m) and flexible GMRES(m) for general (non-symmetric) matrices.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A x = b with GMRES(options.restart): Arnoldi by modified Gram-Schmidt on the device, the
// (m+1) x m Hessenberg least-squares problem by Givens rotations on the host in double.
SolveResult gmres(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});
// Right-preconditioned GMRES(m): Arnoldi on A M^-1, x += M^-1 (V y) at the end of each cycle, so the
// residual it minimises and reports is b - A x. M must be a fixed linear operator (not variable()).
SolveResult gmres(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options = {});
// Flexible GMRES(m) (Saad 1993): keeps z_j = M^-1 v_j (m more vectors) and adds x += Z y, so M may
// change between applications (an inner iteration, a variable preconditioner).
SolveResult fgmres(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options = {});

}  // namespace clkr
