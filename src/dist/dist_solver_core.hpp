// Internal interface of the distributed solvers: the distributed CG iterations (BiCGStab and GMRES are
// the shared templates of src/solver run on DistKrylovOps), on operands dist_solve already checked.
#pragma once

#include "../solver/solver_core.hpp"
#include "dist_krylov_ops.hpp"

namespace clkr::detail {

void dist_cg_classic(DistKrylovOps& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor);
void dist_cg_single_reduction(DistKrylovOps& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor);
void dist_cg_pipelined(DistKrylovOps& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor);

}  // namespace clkr::detail
