// BiCGStab (van der Vorst 1992) for non-symmetric matrices: two SpMVs per iteration, no transpose;
// right-preconditioned with M (A M^-1 y = b, x = M^-1 y), so the residual it tracks is b - A x.
#include "clkr/solver/bicgstab.hpp"

#include <string>

#include "bicgstab_iteration.hpp"
#include "clkr/runtime/error.hpp"
#include "device_krylov_ops.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace detail {

void bicgstab_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                   const SolveOptions& options, SolveMonitor& monitor) {
  DeviceKrylovOps ops{blas, A, M, b, x};
  bicgstab_iteration(ops, x_is_zero, options, monitor);
}

}  // namespace detail

SolveResult bicgstab(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("bicgstab", blas, A, nullptr, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::bicgstab_core(blas, A, nullptr, b, x, x_is_zero, options, monitor);
                             });
}

SolveResult bicgstab(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  if (M.variable())
    throw Error("bicgstab: the preconditioner " + M.description() +
                " changes between applications; BiCGStab needs a fixed one (use fgmres)");
  return detail::run_checked("bicgstab", blas, A, &M, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::bicgstab_core(blas, A, &M, b, x, x_is_zero, options, monitor);
                             });
}

}  // namespace clkr
