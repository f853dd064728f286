// CG of small systems on CPU devices run on the host: on a CPU OpenCL runtime each kernel launch and
// scalar read costs tens of microseconds, more than a whole iteration of a system of a few thousand
// rows, so there the iteration runs as three fused loops on the host, in the solver's precision.
#pragma once

#include <string>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"
#include "solve_monitor.hpp"

namespace clkr::detail {

// Empty when the host path can run this solve (a device Blas, no preconditioner or a Jacobi one in the
// solver's precision, single precision without Kahan sums), else the reason it cannot.
std::string host_cg_unsupported(const Blas& blas, const Preconditioner* M);

// The most nonzeros CgPath::Auto runs on the host in blas's precision (DeviceParams::cg).
std::size_t host_cg_max_nnz(const Blas& blas);

// Whether CgPath::Auto runs CG on the host: a CPU device and at most host_cg_max_nnz nonzeros, where
// host_cg_unsupported says nothing.
bool host_cg_preferred(const Blas& blas, const Matrix& A, const Preconditioner* M);

// The CG (PCG with a Jacobi M) iteration of cg_core's host backend, step for step, with q = A p and
// p'q in one loop, x, r (and z = M^-1 r) with r'r (r'z) in a second and p in a third, on host
// arrays in blas.precision()'s arithmetic; x ends valid on the device. Operands already checked.
void cg_host(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
             const SolveOptions& options, SolveMonitor& monitor);

}  // namespace clkr::detail
