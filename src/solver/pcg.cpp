// The preconditioned conjugate gradient method with the Jacobi preconditioner M = diag(A).
#include "clkr/solver/pcg.hpp"

#include <cmath>
#include <string>

#include "jacobi.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace detail {

// Memory moved per iteration, n = rows, in elements of the Blas precision: the SpMV (the matrix
// once, p and q), p'q 2n, x 3n, r 3n, z = M^-1 r 3n, r'r n, r'z 2n, p 3n: about 19n + the matrix.
// Two host round trips per iteration: p'q, then r'r and r'z together (both reductions are queued
// before the first is read back).
void pcg_jacobi_core(Blas& blas, Matrix& A, Vector& b, Vector& x, bool x_is_zero, const SolveOptions& options,
                     SolveMonitor& monitor) {
  JacobiPreconditioner jacobi(blas, A);
  if (jacobi.first_non_positive_row() >= 0) {
    const std::string row = std::to_string(jacobi.first_non_positive_row());
    monitor.finish(SolveStatus::NotSpd, "A(" + row + "," + row +
                                            ") = " + format_number(jacobi.first_non_positive_value()) +
                                            " <= 0: the matrix is not SPD (Jacobi needs a positive diagonal)");
    return;
  }
  const auto& context = blas.context();
  const std::size_t n = b.size();
  Vector r(context, n, "pcg.r"), z(context, n, "pcg.z"), p(context, n, "pcg.p"), q(context, n, "pcg.q");

  // r = b - A x;  z = M^-1 r;  p = z;  rz = r'z;  rr = r'r
  compute_residual(blas, A, b, x, r, x_is_zero);
  jacobi.apply(r, z);
  blas.copy(z, p);
  DeviceScalar rr_async = blas.dot_async(r, r), rz_async = blas.dot_async(r, z);
  double rr = rr_async.value(), rz = rz_async.value();
  if (!monitor.check_finite(0, "r'r", rr) || !monitor.check_finite(0, "r'z", rz)) return;
  monitor.record(0, std::sqrt(rr));
  if (monitor.reached(std::sqrt(rr))) {
    monitor.finish(SolveStatus::Converged, "the initial residual already meets the tolerance");
    return;
  }

  for (int k = 1; k <= options.max_iterations; ++k) {
    // q = A p;  pq = p'q  (one scalar read back)
    blas.spmv(1.0, A, p, 0.0, q);
    const double pq = blas.dot(p, q);
    if (!positive_curvature(monitor, k, pq)) return;
    // alpha = r'z / p'Ap;  x += alpha p;  r -= alpha q;  z = M^-1 r
    const double alpha = rz / pq;
    blas.axpy(alpha, p, x);
    blas.axpy(-alpha, q, r);
    jacobi.apply(r, z);
    // rr = r'r (the stopping test),  rz_new = r'z  (two scalars, one round trip)
    rr_async = blas.dot_async(r, r);
    rz_async = blas.dot_async(r, z);
    rr = rr_async.value();
    double rz_new = rz_async.value();
    if (!monitor.check_finite(k, "r'r", rr) || !monitor.check_finite(k, "r'z", rz_new)) return;
    monitor.record(k, std::sqrt(rr));

    if (monitor.reached(std::sqrt(rr))) {
      // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = M^-1 r.
      compute_residual(blas, A, b, x, r, false);
      rr = blas.dot(r, r);
      if (monitor.check_explicit(k, std::sqrt(rr)) == AfterCheck::Stop) return;
      jacobi.apply(r, z);
      blas.copy(z, p);
      rz_new = blas.dot(r, z);
    } else {
      // beta = rz_new / rz;  p = z + beta p
      blas.aypx(rz_new / rz, z, p);
    }
    rz = rz_new;
  }
}

}  // namespace detail

SolveResult pcg_jacobi(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("pcg", blas, A, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::pcg_jacobi_core(blas, A, b, x, x_is_zero, options, monitor);
  });
}

}  // namespace clkr
