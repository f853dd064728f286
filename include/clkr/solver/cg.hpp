// The conjugate gradient method for SPD matrices: without a preconditioner (as the CUKr thesis ran
// it, with fused and persistent device paths), or with any SPD preconditioner (PCG).
#pragma once

#include <cstdint>

#include "clkr/blas/blas.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

// Solves A x = b in blas.precision() at blas.location(). Reports NotSpd when p'Ap <= 0.
SolveResult cg(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options = {});
// Preconditioned CG with z = M^-1 r. M must be symmetric (M.symmetric(): refused with clkr::Error
// otherwise) and live on blas's context and location; r'z <= 0 ends the solve as NotSpd (M is not
// positive definite). An Identity M runs the unpreconditioned iteration above.
SolveResult cg(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options = {});

// Whether a device Blas on `device` with `params` runs CG (and PCG) in `precision` on the host, for a
// matrix of `nnz` nonzeros with no preconditioner or a Jacobi one in the solver's precision:
// CgPath::Host always; CgPath::Auto on a CPU device up to cg.host_max_nnz nonzeros
// (cg.host_max_nnz_quasi_double in quasi-double), where kernel launches cost more than the arithmetic.
bool cg_runs_on_host(CgPath path, const DeviceInfo& device, const DeviceParams& params, Precision precision,
                     std::int64_t nnz);

// Whether a device Blas with `params` runs CG in `path` (not on the host) on the persistent kernel, for
// a matrix in `format` with `stats`, without a preconditioner or with Jacobi: CgPath::Persistent for
// CSR and DIA; CgPath::Auto for those up to cg.persistent_max_rows rows (and, where the rows take the
// load-balanced kernels, cg.persistent_max_balanced_nnz entries).
bool cg_runs_persistent(CgPath path, const DeviceParams& params, Format format, const MatrixStats& stats);

}  // namespace clkr
