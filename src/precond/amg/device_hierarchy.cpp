// The level loop of the device setup, with the host setup's stopping rules and refusals
// (hierarchy.cpp), and the update step's recomputation of each level from the one above.
#include "device_hierarchy.hpp"

#include <algorithm>

#include "../diagonal_scan.hpp"
#include "device_csr_view.hpp"
#include "device_spgemm.hpp"
#include "phase_times.hpp"
#include "setup_errors.hpp"

namespace clkr::detail::amg {
namespace {

// Throws, naming the entry, when the coarse operator of `level` holds NaN or Inf (nonfinite.cl). `first`
// (one int; allocated on first use) is kept for the next check: every update checks every level.
void check_finite(const SetupKernels& kernels, Matrix& A, std::size_t level, cl::Buffer& first) {
  const auto nnz = static_cast<cl_int>(A.nnz());
  if (first() == nullptr) first = kernels.array<cl_int>(1, "first non-finite entry");
  kernels.fill(first, nnz, 1);
  cl::Kernel find = kernels.kernel("nonfinite.cl", "first_nonfinite");
  set_args(find, nnz, A.csr_values(Precision::Double).primary, first);
  kernels.per_item(find, static_cast<std::size_t>(nnz));
  const cl_int k = kernels.read<cl_int>(first, 0);
  if (k == nnz) return;
  const HostCsrMatrix host = A.to_host();
  const auto row = static_cast<std::int32_t>(std::upper_bound(host.row_offsets.begin(), host.row_offsets.end(), k) -
                                             host.row_offsets.begin() - 1);
  throw nonfinite_error(level, host.values[k], row, host.col_indices[k]);
}

// Waits for the device, then adds the phase's time.
void end_phase(const SetupKernels& kernels, PhaseLog& phases, const char* name, Clock::time_point start) {
  kernels.context().finish();
  phases.add(name, start);
}

}  // namespace

std::string device_setup_refusal(const AmgOptions& options, const Blas& blas) {
  if (blas.location() != Location::Device) return "the preconditioner runs on the host backend";
  if (!blas.context()->info().fp64)
    return "device " + blas.context()->info().name + " has no fp64 (the device setup computes in double)";
  if (options.block_size != 1)
    return "block_size " + std::to_string(options.block_size) +
           " (the device setup aggregates one unknown per node; the host's does blocks)";
  if (!options.node_offsets.empty())
    return "node_offsets were given or read from the pattern (the device setup aggregates one unknown per node; "
           "the host's does nodes)";
  if (!options.near_null_space.empty())
    return "a near_null_space was given (the device setup takes the constant; the host's orthonormalises any)";
  return "";
}

DeviceHierarchy::DeviceHierarchy(Blas& blas, Matrix& A, const AmgOptions& options, PhaseLog& phases)
    : kernels_(A.context(), blas.params().amg_setup, blas.params().galerkin, &blas), options_(options) {
  auto start = Clock::now();
  levels_.emplace_back();
  levels_[0].csr =
      A.format() == Format::Csr ? std::shared_ptr<Matrix>(std::shared_ptr<Matrix>(), &A) : csr_copy(kernels_, A);
  if (A.format() != Format::Csr) end_phase(kernels_, phases, "CSR copy", start);
  // The near-null space: the constant on the finest level, each aggregate's norm of it below.
  cl::Buffer B = kernels_.array<cl_double>(static_cast<std::size_t>(A.rows()), "near-null space");
  kernels_.fill(B, cl_double{1.0}, static_cast<std::size_t>(A.rows()));
  double eps = options.strength_threshold;
  for (std::size_t l = 0;; ++l) {
    Matrix& Al = *levels_[l].csr;
    // The host setup's check of the diagonal, by one pass over the operator on the device (its diagonal
    // comes to the host only to name a bad entry).
    if (const DiagonalScan scan = scan_diagonal(Al, nullptr, Location::Device); scan.first_bad_row >= 0)
      throw diagonal_error(l, scan.first_bad_row, scan.bad_value);
    if (Al.rows() <= options.coarse_size || static_cast<int>(l) + 1 >= options.max_levels) break;

    start = Clock::now();
    DeviceStrength S = device_strength(kernels_, Al, eps);
    end_phase(kernels_, phases, "strength of connection", start);
    start = Clock::now();
    // Aggressive levels: roots of a distance-four independent set (the host aggregates the distance-two
    // graph instead: aggregates of the same reach, grown in another order).
    const DeviceAggregates aggregates =
        device_aggregate(kernels_, S, static_cast<int>(l) < options.aggressive_levels ? 4 : 2);
    end_phase(kernels_, phases, "aggregation", start);
    start = Clock::now();
    DeviceTentative t = device_tentative(kernels_, aggregates, Al.rows(), B);
    end_phase(kernels_, phases, "tentative prolongator", start);
    const std::int32_t coarse_rows = aggregates.count;
    if (coarse_rows == 0 || coarse_rows > Al.rows() * 0.85) {
      if (Al.rows() <= 2 * options.coarse_size) break;  // small enough to solve directly after all
      throw no_progress_error(l, Al.rows(), Al.rows(), aggregates.count, coarse_rows, eps);
    }
    DeviceLevel& level = levels_[l];
    level.keep = std::move(S.keep);
    level.filtered = std::move(S.filtered);
    S = {};  // the strength graph has served
    start = Clock::now();
    // Plain aggregation (relaxation 0): P is the tentative prolongator itself, as on the host.
    if (options.plain_aggregation())
      level.smoothed.P = t.P;
    else
      level.smoothed = device_smoothed(kernels_, *level.filtered, *t.P, options.prolongator_relaxation);
    level.tentative = std::move(t.P);
    end_phase(kernels_, phases, "prolongator smoothing", start);
    start = Clock::now();
    level.R = std::make_shared<Matrix>(transpose(kernels_, *level.smoothed.P));
    end_phase(kernels_, phases, "transpose", start);
    start = Clock::now();
    level.AP = multiply(kernels_, Al, *level.smoothed.P);
    std::shared_ptr<Matrix> coarse = multiply(kernels_, *level.R, *level.AP);
    check_finite(kernels_, *coarse, l + 1, nonfinite_);
    end_phase(kernels_, phases, "galerkin product", start);
    DeviceLevel next;
    next.A = next.csr = std::move(coarse);
    levels_.push_back(std::move(next));
    B = std::move(t.coarse_B);
    eps *= 0.5;
  }
  check_coarsest(levels_.size() - 1, levels_.back().csr->rows(), options.max_levels);
  start = Clock::now();
  const HostCsrMatrix coarsest = levels_.size() == 1 ? A.host_csr() : levels_.back().A->to_host();
  coarse_ = dense_inverse(coarsest, static_cast<int>(levels_.size()) - 1);
  phases.add("coarse inverse", start);
  // The finest level's CSR copy served the setup; an update needs one only to re-smooth P or for A in
  // SELL (refresh_next_level makes it again where an update's A needs one and it was let go). A CSR A
  // was its own view: the update reads the A it is given.
  if (A.format() == Format::Csr || (!options.update_prolongator && A.format() != Format::Sell)) levels_[0].csr.reset();
}

// The finest level's CSR copy is refreshed only for the re-smoothing of P (its filtered matrix reads
// CSR): the Galerkin product reads A in its own format, SELL excepted.
void DeviceHierarchy::refresh_next_level(std::size_t l, Matrix& A, bool prolongators, PhaseLog& phases) {
  DeviceLevel& level = levels_[l];
  auto start = Clock::now();
  const bool copy = l == 0 && A.format() != Format::Csr && (prolongators || A.format() == Format::Sell);
  if (copy) {
    if (level.csr)
      refresh_csr_copy(kernels_, A, *level.csr);
    else
      level.csr = csr_copy(kernels_, A);
    end_phase(kernels_, phases, "CSR copy", start);
  }
  Matrix& Al = copy || l > 0 ? *level.csr : A;
  // A plain-aggregation P depends on the aggregates alone: nothing to re-smooth.
  if (prolongators && !options_.plain_aggregation()) {
    start = Clock::now();
    refresh_filtered(kernels_, Al, level.keep, *level.filtered);
    resmooth(kernels_, *level.filtered, *level.tentative, options_.prolongator_relaxation, level.smoothed);
    end_phase(kernels_, phases, "prolongator smoothing", start);
    start = Clock::now();
    transpose_values(kernels_, *level.smoothed.P, *level.R);
    end_phase(kernels_, phases, "transpose", start);
  }
  start = Clock::now();
  multiply_values(kernels_, Al, *level.smoothed.P, *level.AP);
  multiply_values(kernels_, *level.R, *level.AP, *levels_[l + 1].A);
  check_finite(kernels_, *levels_[l + 1].A, l + 1, nonfinite_);
  end_phase(kernels_, phases, "galerkin product", start);
}

}  // namespace clkr::detail::amg
