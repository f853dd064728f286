// The conjugate gradient method (Hestenes and Stiefel 1952) without a preconditioner, as the CUKr
// thesis ran it: one SpMV, two dot products and three vector updates per iteration.
#include "clkr/solver/cg.hpp"

#include <cmath>
#include <string>

#include "solver_core.hpp"

namespace clkr {
namespace detail {

bool positive_curvature(SolveMonitor& monitor, int iteration, double pq) {
  if (!monitor.check_finite(iteration, "p'Ap", pq)) return false;
  if (pq > 0) return true;
  monitor.finish(SolveStatus::NotSpd, "p'Ap = " + format_number(pq) + " <= 0 at iteration " +
                                          std::to_string(iteration) + ": the matrix is not SPD");
  return false;
}

// Memory moved per iteration, n = rows, in elements of the Blas precision (quasi-double: 2 floats):
// the SpMV (the matrix once, p and q), then p'q 2n, x 3n, r 3n, r'r n, p 3n: about 14n + the matrix.
// Two host round trips per iteration (p'q, then r'r), each a single scalar: alpha and beta are needed
// on the host as arguments of the next updates.
void cg_core(Blas& blas, Matrix& A, Vector& b, Vector& x, bool x_is_zero, const SolveOptions& options,
             SolveMonitor& monitor) {
  const auto& context = blas.context();
  const std::size_t n = b.size();
  Vector r(context, n, "cg.r"), p(context, n, "cg.p"), q(context, n, "cg.q");

  // r = b - A x;  p = r;  rr = r'r
  compute_residual(blas, A, b, x, r, x_is_zero);
  blas.copy(r, p);
  double rr = blas.dot(r, r);
  if (!monitor.check_finite(0, "r'r", rr)) return;
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
    // alpha = r'r / p'Ap;  x += alpha p;  r -= alpha q;  rr_new = r'r  (one scalar read back)
    const double alpha = rr / pq;
    blas.axpy(alpha, p, x);
    blas.axpy(-alpha, q, r);
    double rr_new = blas.dot(r, r);
    if (!monitor.check_finite(k, "r'r", rr_new)) return;
    monitor.record(k, std::sqrt(rr_new));

    if (monitor.reached(std::sqrt(rr_new))) {
      // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = r.
      compute_residual(blas, A, b, x, r, false);
      rr_new = blas.dot(r, r);
      if (monitor.check_explicit(k, std::sqrt(rr_new)) == AfterCheck::Stop) return;
      blas.copy(r, p);
    } else {
      // beta = rr_new / rr;  p = r + beta p
      blas.aypx(rr_new / rr, r, p);
    }
    rr = rr_new;
  }
}

}  // namespace detail

SolveResult cg(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("cg", blas, A, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::cg_core(blas, A, b, x, x_is_zero, options, monitor);
  });
}

}  // namespace clkr
