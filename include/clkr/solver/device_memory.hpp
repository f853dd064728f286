// The device memory a solve will hold, computed from the host matrix before anything is uploaded, so
// that a solve that cannot fit is refused up front with the need and the limit (as `clkr solve` does)
// instead of failing at an allocation halfway through.
#pragma once

#include <cstdint>

#include "clkr/blas/device_params.hpp"
#include "clkr/data/csr_view.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

struct DeviceMemoryNeed {
  std::int64_t matrix = 0;   // A's arrays in its format, with its values in every precision the solve uses
  std::int64_t vectors = 0;  // b, x and the solver's work vectors
  std::int64_t total() const { return matrix + vectors; }
};

// What solve(kind, ...) in `precision` (SolverKind::Ir: the outer one, options.inner_precision and
// options.inner_solver inside) holds on a device with or without fp64 for A in `format`: the bytes
// matrix_device_bytes gives, and its vectors as the solvers allocate them (tests/solver/
// device_memory_test.cpp compares the sum with the device memory counter's peak during the solve).
// A preconditioner's own memory is not included: the AMG's hierarchy is known only after its setup.
// `cg`: where SolverKind::Cg and Pcg run, which sets their vectors (other kinds ignore it).
enum class CgPlacement {
  Device,      // the fused or BLAS-call iteration: z beside r, p and q when preconditioned
  Persistent,  // the persistent kernel (cg_runs_persistent; none or Jacobi): z is never stored
  Host         // on the host (cg_runs_on_host): the device holds A, b and x only (b as the caller keeps it)
};
// Where CG (or PCG with `precond`, whose values are `precond_in_solver_precision` or not) in `precision`
// runs on `device` for A in `format` with `stats` and `nnz` entries: on the host (cg_runs_on_host) or the
// persistent kernel (cg_runs_persistent), both for no preconditioner or Jacobi only (and, on the host,
// a Jacobi in the solver's precision), else the fused or BLAS-call iteration on the device.
CgPlacement cg_placement(CgPath path, const DeviceInfo& device, const DeviceParams& params, Precision precision,
                         Format format, const MatrixStats& stats, std::int64_t nnz, PrecondKind precond,
                         bool precond_in_solver_precision);
DeviceMemoryNeed solve_device_memory(const CsrView& A, Format format, SolverKind kind, Precision precision,
                                     const SolveOptions& options, bool preconditioned, bool fp64,
                                     CgPlacement cg = CgPlacement::Device);

}  // namespace clkr
