// solve_device_memory: the matrix's bytes from matrix_device_bytes, and each solver's vectors counted as
// its implementation allocates them (the file named beside each count).
#include "clkr/solver/device_memory.hpp"

#include <vector>

#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"

namespace clkr {
namespace {

// The device bytes of one vector of n elements in precision p (quasi-double: a head and a tail buffer).
std::int64_t vector_bytes(std::int64_t n, Precision p) {
  const auto floats = static_cast<std::int64_t>(Context::buffer_bytes(static_cast<std::size_t>(4 * n)));
  if (p == Precision::Single) return floats;
  if (p == Precision::QuasiDouble) return 2 * floats;
  return static_cast<std::int64_t>(Context::buffer_bytes(static_cast<std::size_t>(8 * n)));
}

// The work vectors of a Krylov solver, b and x not included (`persistent`: CG on the persistent kernel).
std::int64_t work_vectors(SolverKind kind, const SolveOptions& options, bool preconditioned, bool persistent) {
  const int m = options.restart;
  switch (kind) {
    // Off the persistent kernel CG also sums its steps apart from x (grouped_solution.hpp: one more).
    case SolverKind::Cg:  // cg.cpp, cg_persistent.cpp: r, p, q; PCG on the device adds z (not the kernel)
      return persistent ? 3 : 4 + (preconditioned ? 1 : 0);
    case SolverKind::Pcg:  // pcg.cpp: r, z (not on the kernel), p, q, and its own Jacobi's inverse diagonal
      return persistent ? 4 : 6;
    case SolverKind::BiCgStab:  // bicgstab.cpp: r, r0, p, v, t; p_hat and s_hat when preconditioned
      return 5 + (preconditioned ? 2 : 0);
    case SolverKind::Gmres:  // gmres.cpp: the basis v0..vm, w; t when preconditioned
      return m + 2 + (preconditioned ? 1 : 0);
    case SolverKind::Fgmres:  // gmres.cpp: as GMRES, and z0..z(m-1) when preconditioned
      return m + 2 + (preconditioned ? m : 0);
    case SolverKind::Ir:
      break;
  }
  throw Error("solve_device_memory: no work vectors known for " + to_string(kind));
}

}  // namespace

DeviceMemoryNeed solve_device_memory(const CsrView& A, Format format, SolverKind kind, Precision precision,
                                     const SolveOptions& options, bool preconditioned, bool fp64, CgPlacement cg) {
  const std::int64_t n = A.rows;
  std::vector<Precision> precisions{precision};
  DeviceMemoryNeed need;
  if (kind == SolverKind::Ir) {
    // iterative_refinement.cpp: b, x, r and d in the outer precision; the inner solver's vectors, and
    // its right-hand side and solution (r and d), in the inner one.
    const Precision inner = options.inner_precision;
    precisions.push_back(inner);
    // The reliable-update CG (reliable_update_cg.cpp) sums its own increment: no grouped sum beside it;
    // z = M^-1 r when preconditioned.
    const std::int64_t inner_work = resolved_refinement(options) == RefinementScheme::ReliableUpdate
                                        ? 3 + (preconditioned ? 1 : 0)
                                        : work_vectors(options.inner_solver, options, preconditioned, false);
    need.vectors = 4 * vector_bytes(n, precision) + (2 + inner_work) * vector_bytes(n, inner);
  } else if (cg == CgPlacement::Host && (kind == SolverKind::Cg || kind == SolverKind::Pcg)) {
    // cg_host.cpp: the work vectors are host arrays, and A's values are converted on the host, so the
    // device holds only the values the Matrix uploads (double, or quasi-double without fp64). The true
    // residual, checked on the device at the end (any format but SELL: true_residual.cpp), uploads b in double
    // for a while when the solve's precision is not double: with no work vectors freed before it, that is the peak.
    // (The device solvers free theirs first, at least 12 bytes a row, more than it takes.)
    const bool b_upload = fp64 && precision != Precision::Double && format != Format::Sell;
    need.vectors = 2 * vector_bytes(n, precision) + (b_upload ? 8 * n : 0);
    need.matrix = matrix_device_bytes(A, format, {fp64 ? Precision::Double : precision}, fp64);
    return need;
  } else {
    need.vectors =
        (2 + work_vectors(kind, options, preconditioned, cg == CgPlacement::Persistent)) * vector_bytes(n, precision);
    // PCG's own Jacobi gets 1 / diag(A) in double from the device scan (jacobi.cpp), then in the solve's
    // precision: the double copy stays beside it.
    if (kind == SolverKind::Pcg && fp64 && precision != Precision::Double)
      need.vectors += vector_bytes(n, Precision::Double);
  }
  need.matrix = matrix_device_bytes(A, format, precisions, fp64);
  return need;
}

CgPlacement cg_placement(CgPath path, const DeviceInfo& device, const DeviceParams& params, Precision precision,
                         Format format, const MatrixStats& stats, std::int64_t nnz, PrecondKind precond,
                         bool precond_in_solver_precision) {
  const bool jacobi_or_none = precond == PrecondKind::None || precond == PrecondKind::Jacobi;
  if (jacobi_or_none && precond_in_solver_precision && cg_runs_on_host(path, device, params, precision, nnz))
    return CgPlacement::Host;
  if (jacobi_or_none && cg_runs_persistent(path, params, format, stats)) return CgPlacement::Persistent;
  return CgPlacement::Device;
}

}  // namespace clkr
