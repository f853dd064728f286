// Distributed conjugate gradients: the classic iteration (two reductions per iteration), the
// single-reduction one of Chronopoulos and Gear, and the pipelined one of Ghysels and Vanroose, each
// with an optional block-Jacobi preconditioner.
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "dist_solver_core.hpp"
#include "pipelined_cg_steps.hpp"

namespace clkr::detail {

// Classic (P)CG. Per iteration: one SpMV with its halo exchange, p'Ap (one MPI_Allreduce), the x and
// r updates, z = M^-1 r, r'r with r'z (one MPI_Allreduce), the p update. Without M, z is r itself.
void dist_cg_classic(DistKrylovOps& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor) {
  DistBlas& blas = ops.blas;
  DistVector r = ops.vector("cg.r"), p = ops.vector("cg.p"), q = ops.vector("cg.q");
  std::optional<DistVector> z_store;
  if (ops.M) z_store.emplace(ops.vector("cg.z"));
  DistVector& z = ops.M ? *z_store : r;
  // rr = r'r and rz = r'z (the same value without M) in one reduction.
  const auto reduce = [&]() -> std::pair<double, double> {
    if (!ops.M) {
      const double rr = blas.dot(r, r);
      return {rr, rr};
    }
    const std::vector<double> v = blas.dots({{&r, &r}, {&r, &z}});
    return {v[0], v[1]};
  };
  // From r = b - A x: z = M^-1 r, p = z, rr and rz.
  double rr = 0, rz = 0;
  const auto restart = [&] {
    ops.precondition_or_copy(r, z);
    blas.copy(z, p);
    std::tie(rr, rz) = reduce();
  };
  // What the iteration divides by, judged after the residual's own verdict (a zero residual has
  // converged, whatever r'z is): false when the solve ended.
  const auto usable_rz = [&](int k) {
    return monitor.check_finite(k, "r'z", rz) && (!ops.M || positive_rz(monitor, k, rz));
  };

  ops.residual(r, x_is_zero);
  restart();
  if (!monitor.record_start("r'r", rr, std::sqrt(rr)) || !usable_rz(0)) return;
  for (int k = 1; k <= options.max_iterations; ++k) {
    // q = A p;  alpha = r'z / p'q
    blas.spmv(1.0, ops.A, p, 0.0, q);
    const double pq = blas.dot(p, q);
    if (!positive_curvature(monitor, k, pq)) return;
    const double alpha = rz / pq;
    // x += alpha p;  r -= alpha q;  z = M^-1 r;  rr = r'r, rz_new = r'z
    blas.axpy(alpha, p, ops.x);
    blas.axpy(-alpha, q, r);
    ops.precondition_or_copy(r, z);
    const auto [rr_new, rz_new] = reduce();
    if (!monitor.check_finite(k, "r'r", rr_new) || !monitor.check_finite(k, "r'z", rz_new)) return;
    monitor.record(k, std::sqrt(rr_new));
    if (monitor.reached(std::sqrt(rr_new))) {
      // Confirm on r = b - A x: if the recursive residual drifted, restart from x.
      ops.residual(r, false);
      if (monitor.check_explicit(k, blas.nrm2(r)) == AfterCheck::Stop) return;
      restart();
      if (!usable_rz(k)) return;
      continue;
    }
    if (ops.M && !positive_rz(monitor, k, rz_new)) return;
    // p = z + (rz_new / rz) p
    blas.aypx(rz_new / rz, z, p);
    rz = rz_new;
  }
}

// Chronopoulos-Gear (P)CG: u = M^-1 r and w = A u come first, then r'r, gamma = r'u and delta = w'u
// in one reduction; p'Ap = delta - beta gamma / alpha follows without a second one, and s = A p is
// carried by the recurrence s = w + beta s. Per iteration: one SpMV with its halo exchange, one
// MPI_Allreduce of three values (two without M), four vector updates (x, r, p, s). The same iterates
// as classic CG in exact arithmetic.
void dist_cg_single_reduction(DistKrylovOps& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor) {
  DistBlas& blas = ops.blas;
  DistVector r = ops.vector("cg.r"), w = ops.vector("cg.w");
  DistVector p = ops.vector("cg.p"), s = ops.vector("cg.s");
  std::optional<DistVector> u_store;
  if (ops.M) u_store.emplace(ops.vector("cg.u"));
  DistVector& u = ops.M ? *u_store : r;
  double rr = 0, gamma = 0, delta = 0;
  // u = M^-1 r;  w = A u;  then rr, gamma, delta in one reduction.
  const auto step = [&] {
    if (ops.M) ops.precondition(r, u);
    blas.spmv(1.0, ops.A, u, 0.0, w);
    if (!ops.M) {
      const std::vector<double> v = blas.dots({{&r, &r}, {&w, &r}});
      rr = gamma = v[0];
      delta = v[1];
      return;
    }
    const std::vector<double> v = blas.dots({{&r, &r}, {&r, &u}, {&w, &u}});
    rr = v[0];
    gamma = v[1];
    delta = v[2];
  };
  // From r = b - A x: u, w, rr, gamma, delta, then p = u and s = w.
  const auto restart = [&] {
    step();
    blas.copy(u, p);
    blas.copy(w, s);
  };
  // After the residual's own verdict: gamma = r'u > 0 (M SPD) and delta = p'Ap > 0 to divide by; sets
  // alpha. False when the solve ended.
  double alpha = 0;
  const auto usable = [&](int k) {
    if (!monitor.check_finite(k, "r'z", gamma) || (ops.M && !positive_rz(monitor, k, gamma))) return false;
    if (!positive_curvature(monitor, k + 1, delta)) return false;
    alpha = gamma / delta;
    return true;
  };

  ops.residual(r, x_is_zero);
  restart();
  if (!monitor.record_start("r'r", rr, std::sqrt(rr)) || !usable(0)) return;
  for (int k = 1; k <= options.max_iterations; ++k) {
    // x += alpha p;  r -= alpha s (= alpha A p);  u = M^-1 r;  w = A u;  rr, gamma, delta
    blas.axpy(alpha, p, ops.x);
    blas.axpy(-alpha, s, r);
    const double gamma_old = gamma;
    step();
    if (!monitor.check_finite(k, "r'r", rr) || !monitor.check_finite(k, "r'z", gamma)) return;
    monitor.record(k, std::sqrt(rr));
    if (monitor.reached(std::sqrt(rr))) {
      ops.residual(r, false);
      if (monitor.check_explicit(k, blas.nrm2(r)) == AfterCheck::Stop) return;
      restart();
      if (!usable(k)) return;
      continue;
    }
    if (ops.M && !positive_rz(monitor, k, gamma)) return;
    // beta = gamma / gamma_old;  p'Ap = delta - beta gamma / alpha;  alpha = gamma / p'Ap
    const double beta = gamma / gamma_old;
    const double pq = delta - beta * gamma / alpha;
    if (!positive_curvature(monitor, k + 1, pq)) return;
    alpha = gamma / pq;
    // p = u + beta p;  s = w + beta s
    blas.aypx(beta, u, p);
    blas.aypx(beta, w, s);
  }
}

// Pipelined (P)CG of Ghysels and Vanroose (2014), Algorithm 3: the recurrences of single-reduction CG
// carried one step further (z = A s and q = M^-1 s by recurrence), so that the SpMV of an iteration,
// n = A M^-1 w, does not need the iteration's reduction. The host queues it, with its halo exchange,
// before it waits for the sums; the device works through the read-back and the MPI_Allreduce instead
// of idling twice per iteration as in classic CG. Every vector update and the next sums are one fused
// kernel (PipelinedCgSteps): 13 elements a row without M, as many bytes as classic CG's unfused updates
// and dots (docs/distributed.md). The recurrences drift from the true residual faster than classic CG's
// (the paper's "residual gap"), the more the worse A is conditioned: the vectors are replaced by their
// definitions whenever the residual has fallen by pipelined_replace_drop() since the last replacement,
// and whenever p'Ap from the recurrences is not positive; convergence is confirmed on b - A x.
//
// The drop that triggers a replacement: the fourth root of the precision's unit roundoff, 1.03e-4 in
// double. Each replacement costs four SpMVs and a reduction, once on the way to a 1e-8 reduction in
// double. On the stiff SuiteSparse matrices where the recurrences without replacement broke down
// (bcsstk18, s1rmq4m1: "p'Ap <= 0"), Jacobi-PCG then takes 1-3% more iterations than classic CG; on
// bcsstk13 and bcsstk15 2.2x and 1.4x more, and 1e-2 or 1e-3 were not better there (docs/distributed.md):
// pipelined CG is for well-conditioned or well-preconditioned systems. In single precision (2^-24) the
// drift grows faster and the root gives 0.016: with 1e-4 CG on gr_30_30 took 61-67 iterations against
// one device's 52 at 3-4 ranks.
namespace {
double pipelined_replace_drop(Precision p) {
  const double unit = p == Precision::Single ? 0x1p-24 : p == Precision::QuasiDouble ? 0x1p-47 : 0x1p-53;
  return std::pow(unit, 0.25);
}
}  // namespace

void dist_cg_pipelined(DistKrylovOps& ops, bool x_is_zero, const SolveOptions& options, SolveMonitor& monitor) {
  DistBlas& blas = ops.blas;
  Communicator& comm = *blas.communicator();
  const bool preconditioned = ops.M != nullptr;
  DistVector r = ops.vector("cg.r"), w = ops.vector("cg.w"), n = ops.vector("cg.n"), z = ops.vector("cg.z");
  DistVector s = ops.vector("cg.s"), p = ops.vector("cg.p");
  std::optional<DistVector> u_store, m_store, q_store;
  if (preconditioned) {
    u_store.emplace(ops.vector("cg.u"));
    m_store.emplace(ops.vector("cg.m"));
    q_store.emplace(ops.vector("cg.q"));
  }
  DistVector& u = preconditioned ? *u_store : r;  // u = M^-1 r
  DistVector& m = preconditioned ? *m_store : w;  // m = M^-1 w
  std::optional<PipelinedCgSteps> steps;
  comm.checked("pipelined CG", [&] { steps.emplace(blas.local(), r.local().size(), preconditioned); });
  PipelinedCgSteps::Vectors vectors{&n.local(),     &z.local(), &s.local(), &p.local(),
                                    &ops.x.local(), &r.local(), &w.local()};
  if (preconditioned) {
    vectors.u = &u.local();
    vectors.m = &m.local();
    vectors.q = &q_store->local();
  }

  // rr = r'r, gamma = r'u, delta = w'u (without M: r'r, r'r, w'r), in the order the kernel sums them.
  double rr = 0, gamma = 0, delta = 0;
  const auto take = [&](const std::vector<double>& v) {
    rr = v[0];
    gamma = preconditioned ? v[1] : v[0];
    delta = v.back();
  };
  // From r = b - A x: u = M^-1 r, w = A u and their sums in one (blocking) reduction; the next update
  // starts the recurrences afresh (beta = 0: z, q, s and p hold finite values or the zeros they were
  // made with, so 0 times them is 0).
  const auto reduce = [&] {
    take(preconditioned ? blas.dots({{&r, &r}, {&r, &u}, {&w, &u}}) : blas.dots({{&r, &r}, {&w, &r}}));
  };
  bool first = true;
  const auto restart = [&] {
    ops.precondition_or_copy(r, u);
    blas.spmv(1.0, ops.A, u, 0.0, w);
    reduce();
    first = true;
  };
  // Residual replacement (Cools, Yetkin, Agullo, Giraud and Vanroose 2018): every recurrence's vector
  // from its definition, x and p kept (so the Krylov process goes on): r = b - A x, u = M^-1 r, w = A u,
  // s = A p, q = M^-1 s, z = A q, and their sums.
  bool replaced = false;  // the latest step's vectors are replaced ones
  const auto replace = [&] {
    ops.residual(r, false);
    ops.precondition_or_copy(r, u);
    blas.spmv(1.0, ops.A, u, 0.0, w);
    blas.spmv(1.0, ops.A, p, 0.0, s);
    DistVector& q = preconditioned ? *q_store : s;  // q = M^-1 s
    if (preconditioned) ops.precondition(s, q);
    blas.spmv(1.0, ops.A, q, 0.0, z);
    reduce();
    replaced = true;
  };
  // After the residual's own verdict: gamma = r'u finite, and > 0 with M (M SPD). False: the solve ended.
  const auto usable = [&](int k) {
    return monitor.check_finite(k, "r'z", gamma) && (!preconditioned || positive_rz(monitor, k, gamma));
  };

  ops.residual(r, x_is_zero);
  restart();
  if (!monitor.record_start("r'r", rr, std::sqrt(rr)) || !usable(0)) return;
  int j = 0;             // the latest iterate: its sums are known, or (pending) being read back
  bool pending = false;  // the sums are the latest update's, not yet reduced
  double alpha = 0, gamma_old = 0;
  double peak = std::sqrt(rr);  // the largest residual norm since the last replacement or restart
  const double replace_drop = pipelined_replace_drop(blas.precision());
  while (true) {
    const bool more = j < options.max_iterations;  // another update follows
    if (more) {
      // m = M^-1 w; n = A m: queued before the wait for the sums below, which it does not need.
      if (preconditioned) ops.precondition(w, m);
      blas.spmv(1.0, ops.A, m, 0.0, n);
    }
    if (pending) {
      std::vector<double> sums(preconditioned ? 3 : 2, 0.0);
      comm.deferred("pipelined CG sums", [&] { sums = steps->sums(); });
      comm.allreduce_sum(sums);
      take(sums);
      pending = false;
      if (!monitor.check_finite(j, "r'r", rr) || !monitor.check_finite(j, "r'z", gamma)) return;
      monitor.record(j, std::sqrt(rr));
      if (monitor.reached(std::sqrt(rr))) {
        // Confirm on r = b - A x: if the recursive residual drifted, restart from x.
        ops.residual(r, false);
        if (monitor.check_explicit(j, blas.nrm2(r)) == AfterCheck::Stop) return;
        restart();
        if (!usable(j)) return;
        peak = std::sqrt(rr);
        continue;  // n = A m again, from the restarted w
      }
      if (preconditioned && !positive_rz(monitor, j, gamma)) return;
      if (more && std::sqrt(rr) < replace_drop * peak) {
        replace();
        if (!usable(j)) return;
        peak = std::sqrt(rr);
        continue;  // n = A m again, from the replaced w
      }
      peak = std::max(peak, std::sqrt(rr));
    }
    if (!more) return;
    // beta = gamma / gamma_old;  p'Ap = delta - beta gamma / alpha_old;  alpha = gamma / p'Ap
    double beta = 0, pq = delta;
    if (!first) {
      beta = gamma / gamma_old;
      pq = delta - beta * gamma / alpha;
      if (!(pq > 0)) {
        // p'Ap from the recurrences, not from A: rounding can make it <= 0 for an SPD A. Replace the
        // vectors and try again; if that does not help, restart from x, where p'Ap = u'Au is computed
        // directly: only that one is a verdict on A (or M).
        if (replaced) {
          ops.residual(r, false);
          restart();
        } else {
          replace();
        }
        if (!usable(j)) return;
        peak = std::sqrt(rr);
        continue;
      }
    }
    if (!positive_curvature(monitor, j + 1, pq)) return;
    alpha = gamma / pq;
    comm.deferred("pipelined CG update", [&] { steps->update(alpha, beta, vectors); });
    first = false;
    replaced = false;
    gamma_old = gamma;
    ++j;
    pending = true;
  }
}

}  // namespace clkr::detail
