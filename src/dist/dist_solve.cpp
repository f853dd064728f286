// The distributed solvers' shared path: the collective operand and option checks, ||b||, dispatch by
// kind and CG variant, the block-Jacobi preconditioner, and the true residual.
#include "clkr/dist/dist_solve.hpp"

#include <cmath>
#include <vector>

#include "../runtime/enum_names.hpp"
#include "../solver/bicgstab_iteration.hpp"
#include "../solver/gmres_iteration.hpp"
#include "clkr/precond/identity.hpp"
#include "clkr/precond/jacobi.hpp"
#include "dist_solver_core.hpp"

namespace clkr {
namespace {

const std::pair<DistCgVariant, const char*> kVariantNames[] = {{DistCgVariant::Classic, "classic"},
                                                               {DistCgVariant::SingleReduction, "single-reduction"},
                                                               {DistCgVariant::Pipelined, "pipelined"}};

// Local checks of the operands (no communication): sizes against A's partition, one context.
void check_operands(const char* solver, DistBlas& blas, DistMatrix& A, const Preconditioner* M, DistVector& b,
                    DistVector& x, const SolveOptions& options) {
  const std::string who = std::string(solver) + ": ";
  if (b.partition() != A.partition() || x.partition() != A.partition())
    throw Error(who + "b and x must be distributed as A's rows are (the same RowPartition)");
  if (&b == &x) throw Error(who + "b and x must be different vectors");
  if (A.context() != blas.context() || b.context() != blas.context() || x.context() != blas.context())
    throw Error(who + "A, b, x and the DistBlas must live on the same context");
  if (M && (M->context() != blas.context() || M->rows() != A.local_rows()))
    throw Error(who + "the preconditioner must be built on this rank's local block (make_block_jacobi)");
  for (const auto& [name, value] : {std::pair("relative_tolerance", options.relative_tolerance),
                                    std::pair("absolute_tolerance", options.absolute_tolerance)}) {
    if (!(value >= 0) || !std::isfinite(value))
      throw Error(who + name + " = " + detail::format_number(value) + " must be a finite number >= 0");
  }
  if (options.max_iterations < 0)
    throw Error(who + "max_iterations = " + std::to_string(options.max_iterations) + " must be >= 0");
  if (options.restart < 1) throw Error(who + "restart = " + std::to_string(options.restart) + " must be >= 1");
}

// The sum of squares of this rank's slice of v, refusing NaN/Inf with its global index.
long double checked_squares(const char* solver, const char* name, const DistVector& v) {
  const std::vector<double> values = v.local().to_host();
  long double sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      throw Error(std::string(solver) + ": " + name + "[" +
                  std::to_string(v.first_row() + static_cast<std::int64_t>(i)) +
                  "] = " + detail::format_number(values[i]) + " is not finite");
    sum += static_cast<long double>(values[i]) * values[i];
  }
  return sum;
}

PrecondOptions jacobi_options() {
  PrecondOptions options;
  options.kind = PrecondKind::Jacobi;
  return options;
}

// PCG's refusal of a non-positive diagonal (M = diag(A) would not be SPD), agreed on by every rank:
// true when the solve goes on.
bool positive_diagonal(Communicator& comm, DistMatrix& A, detail::SolveMonitor& monitor) {
  std::int64_t bad_row = A.global_rows();
  comm.checked("pcg", [&] {
    const std::vector<double> diagonal = A.local_block().diagonal();
    for (std::size_t i = 0; i < diagonal.size() && bad_row == A.global_rows(); ++i) {
      if (diagonal[i] > 0) continue;
      bad_row = A.partition().first(comm.rank()) + static_cast<std::int64_t>(i);
    }
  });
  const std::vector<std::int64_t> rows = comm.allgather(bad_row);
  for (int r = 0; r < comm.size(); ++r) {
    if (rows[static_cast<std::size_t>(r)] == A.global_rows()) continue;
    const std::string row = std::to_string(rows[static_cast<std::size_t>(r)]);
    monitor.finish(SolveStatus::NotSpd, "A(" + row + "," + row + ") <= 0 (on rank " + std::to_string(r) +
                                            "): the matrix is not SPD (Jacobi needs a positive diagonal)");
    return false;
  }
  return true;
}

SolveResult run(SolverKind kind, DistBlas& blas, DistMatrix& A, Preconditioner* M, DistVector& b, DistVector& x,
                const DistSolveOptions& dist_options) {
  const SolveOptions& options = dist_options.solve;
  const std::string name = to_string(kind);
  Communicator& comm = *blas.communicator();
  comm.checked("", [&] {
    if (kind == SolverKind::Ir)
      throw Error("dist_solve: iterative refinement has no distributed version (use cg, gmres or bicgstab)");
    check_operands(name.c_str(), blas, A, M, b, x, options);
    if (kind == SolverKind::Pcg && M)
      throw Error("pcg: it is CG with its own Jacobi; pass the preconditioner to cg instead");
    if ((kind == SolverKind::Cg || kind == SolverKind::Pcg) && M && !M->symmetric())
      throw Error(name + ": the preconditioner " + M->description() + " is not symmetric; CG needs a symmetric one");
    if ((kind == SolverKind::Gmres || kind == SolverKind::BiCgStab) && M && M->variable())
      throw Error(name + ": the preconditioner " + M->description() + " changes between applications (use fgmres)");
  });
  comm.check_same({static_cast<double>(kind), static_cast<double>(dist_options.cg_variant), options.relative_tolerance,
                   options.absolute_tolerance, static_cast<double>(options.max_iterations),
                   static_cast<double>(options.restart), options.use_initial_guess ? 1.0 : 0.0, M ? 1.0 : 0.0},
                  "the solver, its options and whether it is preconditioned");
  double squares = 0;
  comm.checked("", [&] {
    squares = static_cast<double>(checked_squares(name.c_str(), "b", b));
    if (options.use_initial_guess) checked_squares(name.c_str(), "x", x);
  });
  const double b_norm = std::sqrt(comm.allreduce_sum(squares));

  SolveResult result;
  detail::SolveMonitor monitor(options, b_norm, result);
  const bool x_is_zero = !options.use_initial_guess || b_norm == 0;
  if (x_is_zero) comm.deferred("x = 0", [&] { x.local().fill(0.0, blas.precision()); });
  if (b_norm == 0) {
    monitor.record(0, 0.0);
    monitor.finish(SolveStatus::Converged, "b = 0: x = 0 is the solution");
  } else {
    std::unique_ptr<Preconditioner> jacobi;
    if (kind == SolverKind::Pcg && positive_diagonal(comm, A, monitor))
      jacobi = make_block_jacobi(blas, A, jacobi_options());
    detail::DistKrylovOps ops{blas, A, jacobi ? jacobi.get() : M, b, x};
    if (!monitor.finished()) {
      switch (kind) {
        case SolverKind::Cg:
        case SolverKind::Pcg:
          switch (dist_options.cg_variant) {
            case DistCgVariant::Classic:
              detail::dist_cg_classic(ops, x_is_zero, options, monitor);
              break;
            case DistCgVariant::SingleReduction:
              detail::dist_cg_single_reduction(ops, x_is_zero, options, monitor);
              break;
            case DistCgVariant::Pipelined:
              detail::dist_cg_pipelined(ops, x_is_zero, options, monitor);
              break;
          }
          break;
        case SolverKind::BiCgStab:
          detail::bicgstab_iteration(ops, x_is_zero, options, monitor);
          break;
        case SolverKind::Gmres:
        case SolverKind::Fgmres:
          detail::gmres_iteration(ops, kind == SolverKind::Fgmres && M, x_is_zero, options, monitor);
          break;
        case SolverKind::Ir:
          break;  // refused above
      }
    }
  }
  // A failure deferred in the last operations, with no reduction after it, is raised here.
  comm.check("");
  monitor.finish_if_running();
  result.seconds = monitor.seconds();
  result.true_relative_residual = true_relative_residual(A, b, x);
  return result;
}

}  // namespace

std::string to_string(DistCgVariant variant) { return detail::enum_name(kVariantNames, variant, "DistCgVariant"); }

DistCgVariant parse_dist_cg_variant(const std::string& text) {
  return detail::parse_enum_name(kVariantNames, text, "distributed CG variant");
}

SolveResult dist_solve(SolverKind kind, DistBlas& blas, DistMatrix& A, DistVector& b, DistVector& x,
                       const DistSolveOptions& options) {
  return run(kind, blas, A, nullptr, b, x, options);
}

SolveResult dist_solve(SolverKind kind, DistBlas& blas, DistMatrix& A, Preconditioner& M, DistVector& b, DistVector& x,
                       const DistSolveOptions& options) {
  // Identity everywhere: the unpreconditioned iteration, as on one device. A rank without rows holds an
  // Identity (make_block_jacobi) while the others precondition: it applies its (empty) copy with them.
  const bool any = blas.communicator()->allreduce_sum(std::int64_t{detail::preconditioned(&M) ? 1 : 0}) > 0;
  return run(kind, blas, A, any ? &M : nullptr, b, x, options);
}

std::unique_ptr<Preconditioner> make_block_jacobi(DistBlas& blas, DistMatrix& A, const PrecondOptions& options) {
  std::unique_ptr<Preconditioner> M;
  blas.communicator()->checked("block-Jacobi " + to_string(options.kind), [&] {
    M = A.local_rows() > 0 ? make_preconditioner(blas.local(), A.local_block(), options)
                           : std::make_unique<Identity>(blas.local(), A.local_block());
  });
  return M;
}

double true_relative_residual(DistMatrix& A, DistVector& b, DistVector& x) {
  Communicator& comm = *A.communicator();
  std::vector<double> x_local, b_local;
  comm.checked("true residual", [&] {
    x_local = x.local().to_host();
    b_local = b.local().to_host();
  });
  const std::vector<double> halo = A.exchange().exchange_host(x_local);
  long double sums[2] = {0, 0};
  comm.checked("true residual", [&] {
    const HostCsrMatrix& local = A.local_block().host_csr();
    const HostCsrMatrix& coupling = A.halo_block().host_csr();
    const std::vector<std::int32_t>& halo_rows = A.halo_rows();
    std::size_t h = 0;  // the next halo block row
    for (std::int32_t i = 0; i < local.rows; ++i) {
      long double r = b_local[i];
      for (std::int64_t k = local.row_offsets[i]; k < local.row_offsets[i + 1]; ++k)
        r -= static_cast<long double>(local.values[k]) * x_local[local.col_indices[k]];
      if (h < halo_rows.size() && halo_rows[h] == i) {
        for (std::int64_t k = coupling.row_offsets[h]; k < coupling.row_offsets[h + 1]; ++k)
          r -= static_cast<long double>(coupling.values[k]) * halo[coupling.col_indices[k]];
        ++h;
      }
      sums[0] += r * r;
      sums[1] += static_cast<long double>(b_local[i]) * b_local[i];
    }
  });
  std::vector<double> totals{static_cast<double>(sums[0]), static_cast<double>(sums[1])};
  comm.allreduce_sum(totals);
  const double r_norm = std::sqrt(totals[0]), b_norm = std::sqrt(totals[1]);
  return b_norm > 0 ? r_norm / b_norm : r_norm;
}

}  // namespace clkr
