// What every clkr solver takes and returns: the options, the outcome (status, iterations, residuals,
// history) and the solver/status names.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "clkr/data/precision.hpp"

namespace clkr {

// Pcg is CG with the Jacobi preconditioner (kept as a name of its own for the program's --solver pcg).
enum class SolverKind { Cg, Pcg, Gmres, Fgmres, BiCgStab, Ir };
std::string to_string(SolverKind kind);  // "cg", "pcg", "gmres", "fgmres", "bicgstab", "ir"
// Accepts the names above (case-insensitive); throws clkr::Error listing them on anything else.
SolverKind parse_solver(const std::string& text);

enum class SolveStatus {
  Converged,      // the residual reached the tolerance
  MaxIterations,  // options.max_iterations spent first
  NotSpd,         // CG/PCG: p'Ap <= 0 (the matrix is not SPD), r'z <= 0 (the preconditioner is not
                  // SPD), or (PCG with Jacobi) a diagonal entry <= 0
  Breakdown,      // BiCGStab: rho = 0 or (r0, v) = 0; GMRES: a zero or non-finite Givens pivot
  NonFinite,      // a NaN or Inf appeared in a scalar of the iteration
  Stagnated       // the residual recomputed as b - A x stopped decreasing above the tolerance (the
                  // precision's floor: see SolveOptions), or a GMRES cycle / IR step made no progress
};
std::string to_string(SolveStatus status);  // "converged", "max-iterations", "not-spd", ...

// How iterative refinement (SolverKind::Ir) couples its outer and inner precisions.
enum class RefinementScheme {
  Auto,       // ReliableUpdate when the inner solver is CG, else Restarted
  Restarted,  // each outer step solves A d = r afresh in the inner precision (any inner solver): the
              // inner Krylov space is thrown away at every outer step
  // One CG in the inner precision whose residual is replaced by b - A x, recomputed in the outer
  // precision, whenever it has dropped by reliable_update_delta (Sleijpen and van der Vorst 1996): the
  // search direction is kept across updates. Needs inner_solver == SolverKind::Cg.
  ReliableUpdate
};
std::string to_string(RefinementScheme scheme);  // "auto", "restarted", "reliable"
// Accepts the names above (case-insensitive); throws clkr::Error listing them on anything else.
RefinementScheme parse_refinement(const std::string& text);

// How CG runs on a device (the host backend always runs the BLAS-call iteration).
enum class CgPath {
  Auto,        // Host or Persistent where the device's parameters choose them (DeviceParams::cg: Host
               // for small systems on CPU devices; Persistent for CSR or DIA of at most
               // cg.persistent_max_rows rows, without a preconditioner or with Jacobi), else Fused
  Persistent,  // one kernel launch per chunk of iterations, grid barriers inside (CSR or DIA; no
               // preconditioner or Jacobi); falls back to Fused, from the initial guess, when the device
               // does not run its work-groups together
  Fused,       // three fused kernels per iteration, every scalar on the device
  Unfused,     // the plain BLAS-call iteration (for comparison and benchmarks)
  // The iteration on the host, on copies of A, b and x in the solver's precision, with no kernel
  // launches (src/solver/cg_host.cpp): what Auto runs on a CPU device for a system of at most
  // DeviceParams::cg.host_max_nnz nonzeros, without a preconditioner or with Jacobi.
  Host
};
std::string to_string(CgPath path);  // "auto", "persistent", "fused", "unfused", "host"
// Accepts the names above (case-insensitive); throws clkr::Error listing them on anything else.
CgPath parse_cg_path(const std::string& text);

struct IterationRecord {
  int iteration = 0;    // 0 for the initial residual, then 1, 2, ...
  double residual = 0;  // relative residual ||r_k|| / ||b|| as the solver tracks it (||r_k|| if b = 0)
  double seconds = 0;   // since the start of the solve
};

// Convergence is judged on the residual norm ||r|| the iteration tracks (recursively updated in CG,
// PCG and BiCGStab), and confirmed when it reaches the tolerance by recomputing r = b - A x in the
// solver's precision: a recursive residual that has drifted below the true one (it does, in single
// precision) restarts the iteration from x instead of reporting a false convergence, and a confirmed
// residual that does not at least halve between two such checks ends the solve as Stagnated.
struct SolveOptions {
  double relative_tolerance = 1e-8;  // stop when ||b - A x|| <= relative_tolerance * ||b||
  double absolute_tolerance = 0;     // ... or when ||b - A x|| <= absolute_tolerance
  int max_iterations = 10000;        // IR: outer steps; CG, PCG, GMRES: SpMVs; BiCGStab: 2 SpMVs each
  int restart = 30;                  // GMRES(m): the Krylov basis size before a restart
  bool use_initial_guess = false;    // else x starts at 0 (whatever x held is ignored)
  bool record_history = false;       // fill SolveResult::history, one record per iteration
  std::function<void(const IterationRecord&)> progress;  // called every iteration if set
  // CG on a device (also the inner CG of reliable-update refinement, which runs Fused for Auto and
  // Persistent).
  CgPath cg_path = CgPath::Auto;
  // solve_many with CG (none or Jacobi preconditioning) on a device, A in CSR, 2 or more columns and
  // cg_path Auto or Fused: run the columns as one batched CG (k independent CGs in lockstep, the matrix
  // read once per iteration for all of them). false: one column after another (for comparison).
  bool batch_columns = true;
  // CG with a preconditioner (any path but the batched one) forecasts, at iterations strengthen_check,
  // 2x, 4x, ..., how many more it needs at the rate so far, and asks the preconditioner to strengthen
  // itself with that forecast (Preconditioner::strengthen: an Amg rebuilds on smoothed test vectors
  // where the forecast says it pays); when it does, CG restarts from x with the new one, and
  // SolveResult::strengthened says so. 0: never ask. The first check at 100 lets the hump of CG's
  // residual on stiff matrices pass (bcsstk25's grows 300x over its first 400 iterations) and keeps
  // the solves that finish in tens of iterations out of it.
  int strengthen_check = 100;

  // Iterative refinement: the inner solve A d = r.
  Precision inner_precision = Precision::Single;
  SolverKind inner_solver = SolverKind::Cg;
  RefinementScheme refinement = RefinementScheme::Auto;
  // Restarted: each inner solve stops at ||r_inner|| <= inner_relative_tolerance * ||r||.
  double inner_relative_tolerance = 1e-4;
  // Restarted: the iterations of one inner solve at most; ReliableUpdate: the inner iterations
  // between two reliable updates at most (an update is forced after that many).
  int inner_max_iterations = 10000;
  // ReliableUpdate: the outer residual b - A x replaces the inner one once the inner one has dropped
  // below reliable_update_delta times its largest value since the previous update (QUDA's delta).
  double reliable_update_delta = 0.1;
};

// The scheme iterative_refinement runs with these options: `refinement`, with Auto resolved.
RefinementScheme resolved_refinement(const SolveOptions& options);

struct SolveResult {
  SolveStatus status = SolveStatus::MaxIterations;
  bool converged() const { return status == SolveStatus::Converged; }
  int iterations = 0;  // Krylov iterations (IR: outer iterations; reliable-update IR: the updates)
  // ||r_k|| / ||b|| as the iteration tracked it, in the solver's precision.
  double recursive_relative_residual = 0;
  // ||b - A x|| / ||b|| recomputed at the end from x's final values, each row summed error-free (on the
  // device where A and x are there, else on the host in long double; see true_relative_residual): what
  // the answer is actually worth.
  double true_relative_residual = 0;
  double seconds = 0;  // wall time of the solve (setup included, the true residual excluded)
  std::vector<IterationRecord> history;
  // Why the solve stopped, in words: "p'Ap = -3.2e-01 <= 0 at iteration 5: the matrix is not SPD".
  std::string message;
  int inner_iterations = 0;  // IR: the inner solver's iterations summed over every outer step
  // solve() in single or quasi-double precision: the scaling it applied to keep the iteration inside
  // float's range (D A D, b times a power of two), and why; empty when none was needed. The residuals
  // above are then the scaled system's, except true_relative_residual, which is A's own.
  std::string scaling;
  // CG on a device: the path that ran ("persistent", "fused", "unfused", "host"), with the reason when
  // Auto chose it for a reason a user would not guess ("host: 15,844 nonzeros <= cg.host_max_nnz ...");
  // empty for the other solvers and the host backend.
  std::string path;
  // CG whose preconditioner strengthened itself during the solve (SolveOptions::strengthen_check):
  // when it was asked, why and into what ("asked at iteration 100, the residual not yet falling: amg
  // (...), in 0.213 s"); empty otherwise. The iterations and seconds above include both parts of the
  // solve and the strengthening.
  std::string strengthened;
};

}  // namespace clkr
