// The device path of CG for small systems: chunks of iterations inside one kernel launch
// (kernels/solver/cg_persistent.cl), so that an iteration costs three grid barriers instead of three
// kernel launches and a host round trip.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/options.hpp"
#include "solve_monitor.hpp"

namespace clkr::detail {

// Whether the persistent kernel can run CG on A with this Blas: a device Blas and A in CSR or DIA.
bool persistent_cg_supported(const Blas& blas, const Matrix& A);
// Whether CgPath::Auto takes it: supported, and A has at most cg.persistent_max_rows rows.
bool persistent_cg_preferred(const Blas& blas, const Matrix& A);

// CG as cg_core documents it, on the persistent kernel; PCG with M = `jacobi` where it is given (the one
// preconditioner the kernel takes: z = inv_diag .* r computed inside it). Returns false when a launch
// was aborted because its work-groups did not all run at once: x is then back at its initial value and
// the monitor has forgotten the iterations, ready for another path to start over.
bool cg_persistent(Blas& blas, Matrix& A, Jacobi* jacobi, Vector& b, Vector& x, bool x_is_zero,
                   const SolveOptions& options, SolveMonitor& monitor);

}  // namespace clkr::detail
