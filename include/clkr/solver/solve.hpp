// The solver level's public entry point: every solver, dispatch by kind, and the true residual.
// Solvers are written only against Blas, Vector and Matrix, so each runs unchanged on any device,
// storage format and precision, and on the host reference backend.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/solver/bicgstab.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/gmres.hpp"
#include "clkr/solver/iterative_refinement.hpp"
#include "clkr/solver/options.hpp"
#include "clkr/solver/pcg.hpp"

namespace clkr {

// Runs solver `kind`. For SolverKind::Ir an inner Blas is built on blas's context and location in
// options.inner_precision (options.inner_solver solves the corrections).
//
// Every solver refuses up front with clkr::Error: a non-square A, b or x of the wrong size, NaN/Inf in
// b (or in x with use_initial_guess), bad options. A zero b returns x = 0 at once (converged, 0
// iterations). x ends valid in blas.precision() at blas.location(). SolverKind::Fgmres without a
// preconditioner is GMRES.
SolveResult solve(SolverKind kind, Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});
// The same with the preconditioner M (CG: left, symmetric; GMRES, FGMRES, BiCGStab: right; SolverKind::Ir:
// M in options.inner_precision, applied by the inner iterations, iterative_refinement's overload with
// M). Refused with clkr::Error: SolverKind::Pcg (it is CG with its own Jacobi; pass the preconditioner to
// Cg instead).
SolveResult solve(SolverKind kind, Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x,
                  const SolveOptions& options = {});

// ||b - A x|| / ||b|| (||b - A x|| when b = 0), each row's residual as exact as a long double sum: on
// the device for A in CSR on a device with fp64 (error-free products and sums in double: no copy of A
// comes to the host), else on the host in long double from host copies of A, b and x. Throws
// clkr::Error on size mismatches.
double true_relative_residual(Matrix& A, Vector& b, Vector& x);

}  // namespace clkr
