// The distributed solvers: CG (classic, single-reduction or pipelined), PCG with any node-local preconditioner
// as block Jacobi, BiCGStab and GMRES(m)/FGMRES(m) on DistMatrix and DistVector, in every precision.
// Every entry point is collective: call it on every rank with the same kind and options.
#pragma once

#include <memory>
#include <string>

#include "clkr/dist/dist_blas.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// How distributed CG reduces its dot products.
enum class DistCgVariant {
  // Hestenes-Stiefel: p'Ap, then r'r (and r'z) after the update: two MPI_Allreduce per iteration.
  Classic,
  // Chronopoulos and Gear (1989): r'r, r'z and (Az)'z of the same vectors in one MPI_Allreduce per
  // iteration, p'Ap from them by recurrence; two more vector updates (s = Az + beta s) per iteration.
  SingleReduction,
  // Ghysels and Vanroose (2014): one MPI_Allreduce per iteration, which the iteration's SpMV (queued
  // first) overlaps; every vector update and the sums in one fused kernel (three more vectors, four
  // with a preconditioner, in memory). The fastest on GPUs; its recurrences lose accuracy on
  // ill-conditioned systems (residual replacement keeps it converging, with more iterations).
  Pipelined
};
std::string to_string(DistCgVariant variant);  // "classic", "single-reduction", "pipelined"
// Accepts the names above (case-insensitive); throws clkr::Error listing them on anything else.
DistCgVariant parse_dist_cg_variant(const std::string& text);

struct DistSolveOptions {
  SolveOptions solve;  // tolerances, iterations, restart, history, as for one device (cg_path is unused)
  // Classic: the fastest on every device measured except for pipelined, and as robust as the
  // single-device CG on ill-conditioned systems, where pipelined CG needs more iterations.
  DistCgVariant cg_variant = DistCgVariant::Classic;
};

// Solves A x = b. SolverKind::Pcg is CG with Jacobi (the diagonal lies in the local blocks, so block
// Jacobi is Jacobi); Fgmres without a preconditioner is GMRES; Ir is refused. Refused on every rank
// with a CollectiveError: operands that do not match A's partition or blas's context, ranks that
// disagree on the kind or the options, NaN/Inf in b (or in x with use_initial_guess). A zero b returns
// x = 0 (converged, 0 iterations). x ends valid in blas.precision() on each rank's device.
SolveResult dist_solve(SolverKind kind, DistBlas& blas, DistMatrix& A, DistVector& b, DistVector& x,
                       const DistSolveOptions& options = {});
// The same with the block-Jacobi preconditioner M (from make_block_jacobi; CG: M must be symmetric;
// GMRES and BiCGStab: right preconditioning, M fixed; FGMRES: M may vary).
SolveResult dist_solve(SolverKind kind, DistBlas& blas, DistMatrix& A, Preconditioner& M, DistVector& b, DistVector& x,
                       const DistSolveOptions& options = {});

// Collective: the node-local preconditioner `options` names (Jacobi, Chebyshev, AMG), built on this
// rank's local block (for AMG, build A with MatrixOptions::keep_host_copy): applied on every rank,
// block Jacobi, M = diag(M_0, M_1, ...), the coupling between ranks left out. A rank without rows
// gets the identity. A failure on any rank is a CollectiveError on every rank.
std::unique_ptr<Preconditioner> make_block_jacobi(DistBlas& blas, DistMatrix& A, const PrecondOptions& options);

// Collective: ||b - A x|| / ||b|| (||b - A x|| when b = 0) on the hosts in double with long double
// sums, the halo of x exchanged in double.
double true_relative_residual(DistMatrix& A, DistVector& b, DistVector& x);

}  // namespace clkr
