// Internal interface of the solver level: the solver cores (the iterations, run on operands already
// checked) and the checked path every public entry point shares.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "clkr/blas/blas.hpp"
#include "clkr/precond/identity.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"
#include "solve_monitor.hpp"

namespace clkr::detail {

// One solver's iteration: x holds the start (zero when x_is_zero); the core updates x in
// blas.precision(), reports each iteration to `monitor` and finishes it. M is the preconditioner (null
// or an Identity: none), already checked against A and blas.
using SolverCore = void (*)(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                            const SolveOptions& options, SolveMonitor& monitor);

void cg_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
             const SolveOptions& options, SolveMonitor& monitor);
void pcg_jacobi_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                     const SolveOptions& options, SolveMonitor& monitor);
// pcg_jacobi's preconditioner (its solve's and a batch's), from Jacobi's one pass over A, which also
// checks the diagonal: returns the first row whose entry is <= 0 (zero, negative or not finite: A is not
// SPD), with its value, and leaves `jacobi` empty; else -1 with `jacobi` made. `from_host_diagonal`: from
// the diagonal the Matrix keeps (CG on the host of a CPU device), no pass over A. Other refusals go up.
std::int64_t make_positive_jacobi(Blas& blas, Matrix& A, bool from_host_diagonal, std::optional<Jacobi>& jacobi,
                                  double* value);
void gmres_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                const SolveOptions& options, SolveMonitor& monitor);
void fgmres_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                 const SolveOptions& options, SolveMonitor& monitor);
void bicgstab_core(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
                   const SolveOptions& options, SolveMonitor& monitor);

// The preconditioned CG iteration with an SPD M (PCG), on any location and precision.
void pcg_core(Blas& blas, Matrix& A, Preconditioner& M, Vector& b, Vector& x, bool x_is_zero,
              const SolveOptions& options, SolveMonitor& monitor);

// True when M does something: neither null nor clkr::Identity (a preconditioner of the caller's own,
// whatever kind() it reports, is applied).
inline bool preconditioned(const Preconditioner* M) { return M && !dynamic_cast<const Identity*>(M); }

// The core of a Krylov solver kind (throws clkr::Error for SolverKind::Ir, which has none).
SolverCore solver_core(SolverKind kind);

// The path of every public solver: checks the operands and options (clkr::Error naming `solver`),
// refuses NaN/Inf in b (and in x with use_initial_guess), returns x = 0 at once when b = 0, sets
// x = 0 unless use_initial_guess, runs `iterate`, then fills seconds and the true residual.
// M (may be null) must be on blas's context and location and have A's size.
using Iterate = std::function<void(bool x_is_zero, SolveMonitor& monitor)>;
SolveResult run_checked(const char* solver, Blas& blas, Matrix& A, const Preconditioner* M, Vector& b, Vector& x,
                        const SolveOptions& options, const Iterate& iterate);

// The parts of run_checked, for a solver that runs several right-hand sides at once (batched CG):
// check_and_prepare does the checks, returns ||b|| and sets x = 0 where run_checked would;
// finish_zero_rhs finishes a solve with b = 0 (x = 0, converged); finish_result fills seconds and the
// true residual.
double check_and_prepare(const char* solver, Blas& blas, Matrix& A, const Preconditioner* M, Vector& b, Vector& x,
                         const SolveOptions& options);
void finish_zero_rhs(SolveMonitor& monitor);
void finish_result(SolveMonitor& monitor, Matrix& A, Vector& b, Vector& x);

// CG and PCG: whether p'Ap > 0; otherwise finishes the solve (NotSpd, or NonFinite) and says false.
bool positive_curvature(SolveMonitor& monitor, int iteration, double pq);
// PCG: whether r'z > 0 (for r != 0, an SPD M gives r'M^-1 r > 0); otherwise finishes the solve (NotSpd).
bool positive_rz(SolveMonitor& monitor, int iteration, double rz);

// PCG where the monitor found the solve slow (SolveMonitor::slow_convergence): asks M to strengthen
// itself with that evidence and, when it did, notes it in the result. True when M changed (the caller
// restarts from x).
bool strengthen_preconditioner(SolveMonitor& monitor, Preconditioner& M, Matrix& A, const SlowConvergence& evidence);

class GroupedSolution;
// The BLAS-call CG and PCG step of iteration k: q = A p, alpha = numerator / p'q (r'r for CG, r'z for
// PCG), x += alpha p (into `solution`'s group), r -= alpha q. False when p'q is not positive or finite
// (the solve has finished: NotSpd or NonFinite).
bool cg_step(Blas& blas, Matrix& A, Vector& p, Vector& q, Vector& r, GroupedSolution& solution, int k, double numerator,
             SolveMonitor& monitor);

// r = b - A x in blas's precision (r = b when x_is_zero).
void compute_residual(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, bool x_is_zero);

// x = 0 in blas's precision at its location.
void set_zero(Blas& blas, Vector& x);

}  // namespace clkr::detail
