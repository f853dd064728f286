// The conjugate gradient method (Hestenes and Stiefel 1952) without a preconditioner, as the CUKr
// thesis ran it: one SpMV, two dot products and three vector updates per iteration.
#include "clkr/solver/cg.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "../runtime/enum_names.hpp"
#include "cg_fused.hpp"
#include "cg_host.hpp"
#include "cg_persistent.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "grouped_solution.hpp"
#include "residual_forecast.hpp"
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

bool positive_rz(SolveMonitor& monitor, int iteration, double rz) {
  if (rz > 0) return true;
  monitor.finish(SolveStatus::NotSpd, "r'z = r'M^-1 r = " + format_number(rz) + " <= 0 at iteration " +
                                          std::to_string(iteration) + ": the preconditioner is not positive definite");
  return false;
}

bool cg_device_started(SolveMonitor& monitor, bool preconditioned, double rr, double rz) {
  if (preconditioned && !monitor.check_finite(0, "r'z", rz)) return false;
  if (!monitor.record_start("r'r", rr, std::sqrt(rr))) return false;
  return !preconditioned || positive_rz(monitor, 0, rz);
}

CgVerdict judge_cg_iteration(SolveMonitor& monitor, int k, const FusedCgSteps::Scalars& s, bool preconditioned) {
  if (!positive_curvature(monitor, k, s.pq)) return CgVerdict::Ended;
  if (!monitor.check_finite(k, "r'r", s.rr)) return CgVerdict::Ended;
  monitor.record(k, std::sqrt(s.rr));
  if (monitor.reached(std::sqrt(s.rr))) return CgVerdict::Reached;
  if (preconditioned && (!monitor.check_finite(k, "r'z", s.rho) || !positive_rz(monitor, k, s.rho)))
    return CgVerdict::Ended;
  return CgVerdict::Continue;
}

void record_in_flight(SolveMonitor& monitor, int k, const FusedCgSteps::Scalars& s) {
  // Once r is exactly zero, p'q is zero and the kernels leave x alone (alpha = 0): no step was done.
  if (s.pq > 0 && std::isfinite(s.pq) && std::isfinite(s.rr)) monitor.record(k, std::sqrt(s.rr));
}

namespace {

// The device iteration: the same algorithm in three fused passes (FusedCgSteps, kernels/solver/cg.cl)
// with alpha, beta and rho on the device. Memory moved per iteration, in elements of the precision:
// the SpMV (the matrix once, p read, q written), then x, p, r, q read and x, r written (6n), then r, p
// read and p written (3n): the matrix + 11n, against + 14n for the BLAS-call version below.
// With a preconditioner M (PCG) z = M^-1 r comes between the second and third pass, r'z is summed by
// one more kernel (2n) and the third pass takes z for r (rho is r'z); every scalar stays on the device
// all the same.
// The host reads r'r (and p'q, for the SPD check; r'z with M) of iteration k while iteration k + 1 runs,
// so the queue never drains: convergence is seen one iteration late, and the solve ends one iteration
// past the one that reached the tolerance (the residual only gets smaller).
void cg_device_iterate(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, GroupedSolution& solution, bool x_is_zero,
                       const SolveOptions& options, SolveMonitor& monitor) {
  const auto& context = blas.context();
  const std::size_t n = b.size();
  Vector r(context, n, "cg.r"), p(context, n, "cg.p"), q(context, n, "cg.q");
  std::optional<Vector> z;
  if (M) z.emplace(context, n, "pcg.z");
  FusedCgSteps steps(blas, A, M ? std::optional(M->precision()) : std::nullopt);

  // r = b - A x (already computed when `have_residual`);  p = r (PCG: z = M^-1 r, p = z);  rho = r'r
  // (PCG: r'z) on the device. Returns r'r and rho.
  auto start = [&](bool zero, bool have_residual) {
    if (!M) {
      const DeviceScalar rr = start_cg(blas, A, b, solution.joined(), r, p, zero, have_residual);
      steps.set_rho(rr);
      return std::pair(rr.value(), rr.value());
    }
    if (!have_residual) compute_residual(blas, A, b, solution.joined(), r, zero);
    M->apply(r, *z);
    blas.copy(*z, p);
    const DeviceScalar rz = blas.dot_async(r, *z), rr = blas.dot_async(r, r);
    steps.set_rho(rz);
    return std::pair(rr.value(), rz.value());
  };
  const auto [rr0, rz0] = start(x_is_zero, false);
  if (!cg_device_started(monitor, M != nullptr, rr0, rz0)) return;

  // At most FusedCgSteps::kReadSlots iterations in flight; iteration k reads into slot k % kReadSlots.
  // With an AMG preconditioner on a CPU device one: there the host's round trip and the enqueueing of
  // the next iteration cost microseconds against a V-cycle of milliseconds, and the iteration launched
  // past the one that converged would cost a whole cycle (PoCL, poisson3d:64: 13 iterations instead of
  // 12). A GPU keeps two: it would idle while the host enqueues the next iteration's ~45 kernels
  // (~0.2 ms, 5-15% of a cycle on poisson3d:128-256), about what the extra iteration costs in all.
  // With two in flight, the second is held back when the residual forecast says the first will reach
  // the tolerance, so the solve usually ends at the iteration that reached it, not one past.
  constexpr int slots = FusedCgSteps::kReadSlots;
  const bool amg_on_cpu = M && M->kind() == PrecondKind::Amg && blas.context()->info().type == DeviceType::Cpu;
  const int in_flight = amg_on_cpu ? 1 : slots;
  int launched = 0, examined = 0;
  ResidualForecast forecast;
  auto launch = [&] {
    ++launched;
    steps.spmv_dot(p, q);  // q = A p;  partial p'q
    // alpha = rho / p'q;  x += alpha p;  r -= alpha q;  r'r  (x: the group's steps, joining x at its end)
    const bool join = GroupedSolution::ends_group(launched);
    steps.update_xr(solution.steps(), r, p, q, join ? &solution.total() : nullptr);
    if (join) {
      solution.after_joining_step();
    } else {
      solution.after_step(launched);
    }
    if (M) {
      M->apply(r, *z);                       // z = M^-1 r
      steps.dot_rz(r, *z);                   // partial r'z
      steps.update_p_preconditioned(*z, p);  // beta = r'z / rho;  p = z + beta p;  rho = r'z
    } else {
      steps.update_p(r, p);  // beta = r'r / rho;  p = r + beta p;  rho = r'r
    }
    steps.read_scalars(launched % slots);
    // Submit now: drivers may hold enqueued commands until a flush, which would leave the device idle
    // while the host waits for the previous iteration's scalars.
    blas.context()->queue().flush();
  };
  // Waits for the iteration in flight, if any, and logs it (it counts only if it did a step).
  auto finish_in_flight = [&] {
    if (launched == examined) return;
    ++examined;
    record_in_flight(monitor, examined, steps.wait_scalars(examined % slots));
  };
  while (examined < launched || launched < options.max_iterations) {
    const bool room = launched < options.max_iterations && launched - examined < in_flight;
    const bool in_flight_finishes = launched > examined && monitor.reached(forecast.ahead(launched - examined));
    if (room && !in_flight_finishes) {
      launch();
      continue;
    }
    ++examined;
    const FusedCgSteps::Scalars scalars = steps.wait_scalars(examined % slots);
    const CgVerdict verdict = judge_cg_iteration(monitor, examined, scalars, M != nullptr);
    if (verdict == CgVerdict::Ended) return;
    forecast.add(std::sqrt(scalars.rr));
    if (verdict == CgVerdict::Continue) {
      const std::optional<SlowConvergence> slow = M ? monitor.slow_convergence(examined) : std::nullopt;
      if (!slow) continue;
      // The iteration in flight runs with the old M: let it finish before M may rebuild under it.
      // Should it reach the tolerance, the next one is judged Reached.
      finish_in_flight();
      if (!strengthen_preconditioner(monitor, *M, A, *slow)) continue;
      // A new M: restart from x with r = b - A x and p = M^-1 r.
      forecast.clear();
      const auto [rr_restart, rz_restart] = start(false, false);
      if (!monitor.check_finite(examined, "r'z", rz_restart) || !positive_rz(monitor, examined, rz_restart)) return;
      continue;
    }
    // Reached: let the iteration in flight finish.
    finish_in_flight();
    // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = r (PCG: M^-1 r).
    compute_residual(blas, A, b, solution.joined(), r, false);
    const double rr = blas.dot(r, r);
    if (monitor.check_explicit(examined, std::sqrt(rr)) == AfterCheck::Stop) return;
    forecast.clear();
    const auto [rr_restart, rz_restart] = start(false, true);
    if (M && !positive_rz(monitor, examined, rz_restart)) return;
  }
}

// The fused iteration with x's steps summed in groups (grouped_solution.hpp).
void cg_device(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
               const SolveOptions& options, SolveMonitor& monitor) {
  GroupedSolution solution(blas, x);
  cg_device_iterate(blas, A, M, b, solution, x_is_zero, options, monitor);
  solution.joined();
}

// The BLAS-call iteration without a preconditioner, x's steps summed in `solution`'s groups.
void cg_plain_iterate(Blas& blas, Matrix& A, Vector& b, GroupedSolution& solution, bool x_is_zero,
                      const SolveOptions& options, SolveMonitor& monitor) {
  const auto& context = blas.context();
  const std::size_t n = b.size();
  Vector r(context, n, "cg.r"), p(context, n, "cg.p"), q(context, n, "cg.q");

  // r = b - A x;  p = r;  rr = r'r
  compute_residual(blas, A, b, solution.joined(), r, x_is_zero);
  blas.copy(r, p);
  double rr = blas.dot(r, r);
  if (!monitor.record_start("r'r", rr, std::sqrt(rr))) return;

  for (int k = 1; k <= options.max_iterations; ++k) {
    // q = A p;  alpha = r'r / p'Ap (one scalar read back);  x += alpha p;  r -= alpha q
    if (!cg_step(blas, A, p, q, r, solution, k, rr, monitor)) return;
    // rr_new = r'r  (one scalar read back)
    double rr_new = blas.dot(r, r);
    if (!monitor.check_finite(k, "r'r", rr_new)) return;
    monitor.record(k, std::sqrt(rr_new));

    if (monitor.reached(std::sqrt(rr_new))) {
      // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = r.
      compute_residual(blas, A, b, solution.joined(), r, false);
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

}  // namespace

// Memory moved per iteration, n = rows, in elements of the Blas precision (quasi-double: 2 floats):
// the SpMV (the matrix once, p and q), then p'q 2n, x 3n, r 3n, r'r n, p 3n: about 14n + the matrix.
// Two host round trips per iteration (p'q, then r'r), each a single scalar: alpha and beta are needed
// on the host as arguments of the next updates. This is the host backend's iteration; the device
// runs cg_device above. A preconditioner (other than the identity) runs PCG (pcg.cpp).
void cg_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
             const SolveOptions& options, SolveMonitor& monitor) {
  std::string& path = monitor.result().path;
  if (blas.location() == Location::Device && options.cg_path == CgPath::Host) {
    if (const std::string why = host_cg_unsupported(blas, M); !why.empty())
      throw Error("cg: the host path cannot run this solve: " + why);
    path = "host";
    cg_host(blas, A, M, b, x, x_is_zero, options, monitor);
    return;
  }
  if (blas.location() == Location::Device && options.cg_path == CgPath::Auto && host_cg_preferred(blas, A, M)) {
    path = "host: " + std::to_string(A.nnz()) + " nonzeros <= " +
           (blas.precision() == Precision::QuasiDouble ? "cg.host_max_nnz_quasi_double " : "cg.host_max_nnz ") +
           std::to_string(host_cg_max_nnz(blas)) + " on a CPU device, where kernel launches cost more";
    cg_host(blas, A, M, b, x, x_is_zero, options, monitor);
    return;
  }
  if (blas.location() == Location::Device) path = options.cg_path == CgPath::Unfused ? "unfused" : "fused";
  const bool with_m = preconditioned(M);
  // The persistent kernel takes no preconditioner or Jacobi (computing z = M^-1 r itself).
  Jacobi* const jacobi = with_m ? dynamic_cast<Jacobi*>(M) : nullptr;
  const bool kernel_takes_m = !with_m || jacobi != nullptr;
  if (!kernel_takes_m && options.cg_path == CgPath::Persistent)
    throw Error("cg: the persistent CG kernel takes Jacobi or no preconditioner, not " + M->description() +
                " (use CgPath::Auto or Fused)");
  // On a device: the persistent kernel (none or Jacobi) where it applies, else the fused iteration
  // (scalars on the device); elsewhere, or unfused, the BLAS-call iteration.
  if (blas.location() == Location::Device && options.cg_path != CgPath::Unfused) {
    const bool persistent = kernel_takes_m && (options.cg_path == CgPath::Persistent ||
                                               (options.cg_path == CgPath::Auto && persistent_cg_preferred(blas, A)));
    if (persistent) {
      if (!persistent_cg_supported(blas, A))
        throw Error("cg: the persistent CG kernel needs the matrix in CSR or DIA, not " + to_string(A.format()));
      // false: the device did not run the kernel's work-groups together; start over on the fused path.
      path = "persistent";
      if (cg_persistent(blas, A, jacobi, b, x, x_is_zero, options, monitor)) return;
      path = "fused: the persistent kernel's work-groups did not all run at once";
    }
    cg_device(blas, A, with_m ? M : nullptr, b, x, x_is_zero, options, monitor);
    return;
  }
  if (with_m) {
    pcg_core(blas, A, *M, b, x, x_is_zero, options, monitor);
    return;
  }
  GroupedSolution solution(blas, x);
  cg_plain_iterate(blas, A, b, solution, x_is_zero, options, monitor);
  solution.joined();
}

}  // namespace detail

namespace {
const std::pair<CgPath, const char*> kCgPathNames[] = {{CgPath::Auto, "auto"},
                                                       {CgPath::Persistent, "persistent"},
                                                       {CgPath::Fused, "fused"},
                                                       {CgPath::Unfused, "unfused"},
                                                       {CgPath::Host, "host"}};
}  // namespace

std::string to_string(CgPath path) { return detail::enum_name(kCgPathNames, path, "CgPath"); }

CgPath parse_cg_path(const std::string& text) { return detail::parse_enum_name(kCgPathNames, text, "CG path"); }

SolveResult cg(Blas& blas, Matrix& A, Vector& b, Vector& x, const SolveOptions& options) {
  return detail::run_checked("cg", blas, A, nullptr, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::cg_core(blas, A, nullptr, b, x, x_is_zero, options, monitor);
  });
}

SolveResult cg(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, const SolveOptions& options) {
  if (!M.symmetric())
    throw Error("cg: the preconditioner " + M.description() +
                " is not symmetric; CG needs a symmetric one (use gmres, fgmres or bicgstab)");
  return detail::run_checked("cg", blas, A, &M, b, x, options, [&](bool x_is_zero, detail::SolveMonitor& monitor) {
    detail::cg_core(blas, A, &M, b, x, x_is_zero, options, monitor);
  });
}

}  // namespace clkr
