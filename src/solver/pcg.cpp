// The preconditioned conjugate gradient method: any SPD preconditioner (pcg_core), and the Jacobi
// special case pcg_jacobi / SolverKind::Pcg.
#include "clkr/solver/pcg.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "../precond/diagonal_scan.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "grouped_solution.hpp"
#include "solver_core.hpp"

namespace clkr {
namespace detail {

// Memory moved per iteration, n = rows, in elements of the Blas precision: the SpMV (the matrix once,
// p and q), p'q 2n, x 3n, r 3n, r'r n, r'z 2n, p 3n: about 14n + the matrix + one application of M
// (Jacobi: 3n). Two host round trips per iteration: p'q, then r'r and r'z together (both reductions
// are queued before the first is read back).
namespace {

// pcg_core's iteration, its steps summed in `solution`'s groups.
void pcg_iterate(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, GroupedSolution& solution, bool x_is_zero,
                 const SolveOptions& options, SolveMonitor& monitor) {
  const auto& context = blas.context();
  const std::size_t n = b.size();
  Vector r(context, n, "pcg.r"), z(context, n, "pcg.z"), p(context, n, "pcg.p"), q(context, n, "pcg.q");

  // r = b - A x;  z = M^-1 r;  p = z;  rz = r'z;  rr = r'r
  compute_residual(blas, A, b, solution.joined(), r, x_is_zero);
  M.apply(r, z);
  blas.copy(z, p);
  DeviceScalar rr_async = blas.dot_async(r, r), rz_async = blas.dot_async(r, z);
  double rr = rr_async.value(), rz = rz_async.value();
  if (!monitor.check_finite(0, "r'z", rz)) return;
  if (!monitor.record_start("r'r", rr, std::sqrt(rr))) return;
  if (!positive_rz(monitor, 0, rz)) return;

  // After a drifted check or a new M: p = M^-1 r from the r just recomputed, rz_new = r'z. False when
  // r'z <= 0 ended the solve.
  auto restart_direction = [&](int k, double& rz_new) {
    M.apply(r, z);
    blas.copy(z, p);
    rz_new = blas.dot(r, z);
    return positive_rz(monitor, k, rz_new);
  };

  for (int k = 1; k <= options.max_iterations; ++k) {
    // q = A p;  alpha = r'z / p'Ap (one scalar read back);  x += alpha p;  r -= alpha q;  z = M^-1 r
    if (!cg_step(blas, A, p, q, r, solution, k, rz, monitor)) return;
    M.apply(r, z);
    // rr = r'r (the stopping test),  rz_new = r'z  (two scalars, one round trip)
    rr_async = blas.dot_async(r, r);
    rz_async = blas.dot_async(r, z);
    rr = rr_async.value();
    double rz_new = rz_async.value();
    if (!monitor.check_finite(k, "r'r", rr) || !monitor.check_finite(k, "r'z", rz_new)) return;
    monitor.record(k, std::sqrt(rr));

    if (monitor.reached(std::sqrt(rr))) {
      // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = M^-1 r.
      compute_residual(blas, A, b, solution.joined(), r, false);
      rr = blas.dot(r, r);
      if (monitor.check_explicit(k, std::sqrt(rr)) == AfterCheck::Stop) return;
      if (!restart_direction(k, rz_new)) return;
    } else if (const std::optional<SlowConvergence> slow = monitor.slow_convergence(k);
               slow && strengthen_preconditioner(monitor, M, A, *slow)) {
      // A new M: the directions built with the old one are not conjugate under it, so restart from x
      // with p = M^-1 r (r recomputed, as after a failed check: one SpMV once).
      compute_residual(blas, A, b, solution.joined(), r, false);
      if (!restart_direction(k, rz_new)) return;
    } else {
      if (!positive_rz(monitor, k, rz_new)) return;
      // beta = rz_new / rz;  p = z + beta p
      blas.aypx(rz_new / rz, z, p);
    }
    rz = rz_new;
  }
}

}  // namespace

void pcg_core(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, bool x_is_zero,
              const SolveOptions& options, SolveMonitor& monitor) {
  GroupedSolution solution(blas, x);
  pcg_iterate(blas, A, M, b, solution, x_is_zero, options, monitor);
  solution.joined();
}

bool cg_step(Blas& blas, Matrix& A, Vector& p, Vector& q, Vector& r, GroupedSolution& solution, int k, double numerator,
             SolveMonitor& monitor) {
  blas.spmv(1.0, A, p, 0.0, q);
  const double pq = blas.dot(p, q);
  if (!positive_curvature(monitor, k, pq)) return false;
  const double alpha = numerator / pq;
  blas.axpy(alpha, p, solution.steps());
  blas.axpy(-alpha, q, r);
  solution.after_step(k);
  return true;
}

bool strengthen_preconditioner(SolveMonitor& monitor, Preconditioner& M, Matrix& A, const SlowConvergence& evidence) {
  if (!M.strengthen(A, evidence)) return false;
  monitor.strengthened(evidence, M.description(), M.strengthen_seconds());
  return true;
}

std::int64_t make_positive_jacobi(Blas& blas, Matrix& A, bool from_host_diagonal, std::optional<Jacobi>& jacobi,
                                  double* value) {
  // Jacobi refuses a zero or non-finite entry and records the first negative one: either is a row <= 0.
  // (Checking first and then building would read A twice on a device.)
  std::int64_t bad = -1;
  try {
    if (from_host_diagonal) {
      jacobi.emplace(blas, A, A.diagonal());
    } else {
      jacobi.emplace(blas, A);
    }
    bad = jacobi->first_negative_row();
    *value = jacobi->first_negative_value();
  } catch (const Error&) {
    bad = first_nonpositive_diagonal(A, Location::Host, value);
    if (bad < 0) throw;
  }
  if (bad >= 0) jacobi.reset();
  return bad;
}

// PCG with M = diag(A) (cg_core: the fused iteration on a device). A non-positive diagonal entry means A
// is not SPD: reported as NotSpd without iterating (a zero one too, though it would make M singular
// rather than indefinite).
void pcg_jacobi_core(Blas& blas, Matrix& A, Preconditioner*, Vector& b, Vector& x, bool x_is_zero,
                     const SolveOptions& options, SolveMonitor& monitor) {
  // CG on the host of a CPU device (cg_host.cpp) reads 1 / diag(A) on the host: made there from the
  // diagonal the Matrix keeps, it takes no device memory. A solve on the device gets it from one pass
  // over A there.
  const bool host_cg = blas.location() == Location::Device && cg_runs_on_host(options.cg_path, blas.context()->info(),
                                                                              blas.params(), blas.precision(), A.nnz());
  std::optional<Jacobi> jacobi;
  double value = 0;
  const std::int64_t bad = make_positive_jacobi(blas, A, host_cg, jacobi, &value);
  if (bad >= 0) {
    const std::string row = std::to_string(bad);
    monitor.finish(SolveStatus::NotSpd, "A(" + row + "," + row + ") = " + format_number(value) +
                                            " <= 0: the matrix is not SPD (Jacobi needs a positive diagonal)");
    return;
  }
  cg_core(blas, A, &*jacobi, b, x, x_is_zero, options, monitor);
}

}  // namespace detail

SolveResult pcg_jacobi(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("pcg", blas, A, nullptr, b, x, options,
                             [&](bool x_is_zero, detail::SolveMonitor& monitor) {
                               detail::pcg_jacobi_core(blas, A, nullptr, b, x, x_is_zero, options, monitor);
                             });
}

}  // namespace clkr
