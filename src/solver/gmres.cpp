// Restarted GMRES(m) (Saad and Schultz 1986): Arnoldi with modified Gram-Schmidt on the device, the
// small Hessenberg least-squares problem by Givens rotations on the host in double. Preconditioned on
// the right (Arnoldi on A M^-1, x += M^-1 V y), so the residual minimised is b - A x itself; the
// flexible variant (FGMRES, Saad 1993) keeps z_j = M^-1 v_j and adds x += Z y, so M may change between
// applications.
//
// Why modified Gram-Schmidt: the Blas offers dot and axpy, one vector pair at a time. MGS costs, at
// Arnoldi step j, j+1 dots and j+1 axpys (5(j+1)n elements moved) and j+2 host round trips, since
// each coefficient h_ij = (w, v_i) is taken after the previous projection was subtracted. Classical
// Gram-Schmidt could queue its j+1 dots together (dot_async, one round trip) but loses
// orthogonality like cond(A)^2 * u, so it needs a second pass (CGS2): 3 round trips but twice the
// memory traffic. For the large sparse systems this library is for, memory traffic dominates and
// MGS (orthogonality lost like cond(A) * u, enough for GMRES's backward stability) is the better trade;
// on small systems where latency dominates, CGS2 with a fused multi-dot kernel would win.
#include "clkr/solver/gmres.hpp"

#include <string>

#include "clkr/runtime/error.hpp"
#include "device_krylov_ops.hpp"
#include "gmres_iteration.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace detail {

namespace {

void restarted_gmres(Blas& blas, Matrix& A, Preconditioner* M, bool flexible, Vector& b, Vector& x, bool x_is_zero,
                     const SolveOptions& options, SolveMonitor& monitor) {
  DeviceKrylovOps ops{blas, A, M, b, x};
  gmres_iteration(ops, flexible, x_is_zero, options, monitor);
}

}  // namespace

void gmres_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                const SolveOptions& options, SolveMonitor& monitor) {
  restarted_gmres(blas, A, M, false, b, x, x_is_zero, options, monitor);
}

void fgmres_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                 const SolveOptions& options, SolveMonitor& monitor) {
  restarted_gmres(blas, A, M, true, b, x, x_is_zero, options, monitor);
}

}  // namespace detail

SolveResult gmres(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("gmres", blas, A, nullptr, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::gmres_core(blas, A, nullptr, b, x, x_is_zero, options, monitor);
                             });
}

SolveResult gmres(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  if (M.variable())
    throw Error("gmres: the preconditioner " + M.description() +
                " changes between applications; right-preconditioned GMRES needs a fixed one (use fgmres)");
  return detail::run_checked("gmres", blas, A, &M, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::gmres_core(blas, A, &M, b, x, x_is_zero, options, monitor);
  });
}

SolveResult fgmres(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("fgmres", blas, A, &M, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::fgmres_core(blas, A, &M, b, x, x_is_zero, options, monitor);
  });
}

}  // namespace clkr
