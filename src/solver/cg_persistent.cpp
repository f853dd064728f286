// Launches of kernels/solver/cg_persistent.cl and the host side of its iteration: two launches in
// flight, each reading back its state and its per-iteration r'r into pinned memory, so the device
// never waits for the host between chunks.
#include "cg_persistent.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>

#include "../blas/csr_balanced.hpp"
#include "../blas/spmv.hpp"
#include "../runtime/co_resident_groups.hpp"
#include "cg_fused.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_core.hpp"

namespace clkr::detail {
namespace {

// Work-items per row: the parameter, or about four entries per work-item up to 32 (and the group).
std::size_t lanes_for(const Matrix& A, const CgParams& params, std::size_t work_group) {
  if (params.persistent_lanes != 0) return params.persistent_lanes;
  const double mean = A.stats().mean_row_length;
  std::size_t lanes = 1;
  while (lanes * 2 <= std::min<std::size_t>(32, work_group) && 4.0 * lanes * 2 <= mean) lanes *= 2;
  return lanes;
}

// One kernel and its buffers: the scalar block (rho, p'q, then r'r per iteration of a launch), the
// partial sums, the state, and pinned staging for kSlots launches in flight. With `inv_diag` (Jacobi's
// 1 / diag(A)) the kernel runs PCG with M = diag(A) (-DJACOBI).
class PersistentKernel {
 public:
  static constexpr int kSlots = 2;

  PersistentKernel(Blas& blas, Matrix& A, Vector* inv_diag)
      : blas_(blas),
        A_(A),
        inv_diag_(inv_diag),
        precision_(blas.precision()),
        n_(static_cast<std::size_t>(A.rows())),
        chunk_(static_cast<int>(blas.params().cg.persistent_iterations_per_launch)),
        balanced_(csr_balanced_applies(blas.params().spmv, A)),
        partials_(blas.context(), 1, "cg.partials"),
        scalars_(blas.context(), 2 + static_cast<std::size_t>(chunk_), "cg.scalars") {
    Context& context = *blas.context();
    const CgParams& params = blas.params().cg;
    // The work-group: a power of two (the kernel's reductions halve it) within the parameter, the
    // device's maximum and what this kernel can run with (CL_KERNEL_WORK_GROUP_SIZE, known once built).
    local_ = floor_power_of_two(std::min(params.persistent_work_group_size, context.info().max_work_group_size));
    const SpmvParams& spmv_params = blas.params().spmv;
    const bool dia = A.format() == Format::Dia;  // one work-item per row
    std::size_t lanes = 1;
    std::string options;
    for (;;) {
      lanes = balanced_ || dia ? 1 : std::min(lanes_for(A, params, local_), local_);
      options = precision_build_option(precision_) + " -DWG=" + std::to_string(local_) +
                " -DLANES=" + std::to_string(lanes) + " -DSPIN_LIMIT=" + std::to_string(params.persistent_spin_limit) +
                (balanced_ ? " -DBALANCED" : "") + (dia ? " -DDIA" : "") + (inv_diag_ ? " -DJACOBI" : "") +
                offset_build_option(A) + " -DROW_GROUP=" + std::to_string(spmv_params.row_load_group) +
                stream_loads_option(spmv_params, context.info(), balanced_);
      kernel_ = context.kernel("solver/cg_persistent.cl", "cg_persistent", options);
      const auto fits = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
      if (fits >= local_ || local_ == 1) break;
      local_ = floor_power_of_two(fits);
    }
    // No more groups than compute units x the parameter, nor than there are blocks; then as many of
    // those as run at once (settle_groups).
    const std::size_t rows_per_block = local_ / lanes;
    compute_units_ = std::max<std::size_t>(context.info().compute_units, 1);
    std::size_t useful = (n_ + rows_per_block - 1) / rows_per_block;
    if (balanced_) {  // enough groups for the entries too, each block about entries_per_item per work-item
      const std::size_t per_block = local_ * spmv_params.csr_balanced_entries_per_item;
      useful = std::max(useful, static_cast<std::size_t>((A.nnz() + per_block - 1) / per_block));
    }
    groups_ = std::max<std::size_t>(1, std::min(compute_units_ * params.persistent_groups_per_compute_unit, useful));
    build_options_ = options;
    partials_ = Vector(blas.context(), (inv_diag_ ? 3 : 2) * groups_, "cg.partials");
    state_ = context.allocate(kGridStateInts * sizeof(cl_int), "cg.persistent state");
    slot_bytes_ = kGridStateInts * sizeof(cl_int) + (2 + chunk_) * bytes_per_element(precision_);
    staging_ = context.allocate(kSlots * slot_bytes_, "cg.persistent staging (pinned)",
                                CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    staging_host_ = static_cast<unsigned char*>(
        context.queue().enqueueMapBuffer(staging_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, kSlots * slot_bytes_));
    settle_groups();
    // Bytes and flops of one iteration: the SpMV (beta = 0), then x, p, r, q read and x, r written,
    // then r, p read and p written: as the fused path counts them. Jacobi: inv_diag read in both
    // vector steps, and r'z's three flops a row.
    const OpCost spmv = spmv_cost(A, precision_, 0.0);
    const double e = static_cast<double>(bytes_per_element(precision_));
    iteration_flops_ = spmv.flops + (inv_diag_ ? 14.0 : 10.0) * n_;
    iteration_bytes_ = spmv.bytes + (inv_diag_ ? 11.0 : 9.0) * n_ * e;
  }

  PersistentKernel(const PersistentKernel&) = delete;
  PersistentKernel& operator=(const PersistentKernel&) = delete;
  ~PersistentKernel() {
    try {  // destructors never throw: a failed unmap only leaks the mapping until the context goes
      if (staging_host_) blas_.context()->queue().enqueueUnmapMemObject(staging_, staging_host_);
    } catch (const cl::Error&) {
    }
  }

  int chunk() const { return chunk_; }

  // rho = r'r (Jacobi: r'z), and the status back to running (a fresh start, or a restart after a check).
  void reset(const DeviceScalar& rho) {
    store_scalar(*blas_.context(), rho, scalars_, 0);
    blas_.context()->queue().enqueueFillBuffer(state_, cl_int{0}, 0, kGridStateInts * sizeof(cl_int));
  }

  // Up to `iterations` (<= chunk()) iterations, stopping once r'r <= stop_rr; results into `slot`.
  void launch(Vector& x, Vector& r, Vector& p, Vector& q, int iterations, double stop_rr, int slot) {
    auto& queue = blas_.context()->queue();
    queue.enqueueFillBuffer(state_, cl_int{0}, 0, sizeof(cl_int));  // the arrival counter
    set_args(x, r, p, q, iterations, stop_rr);
    queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(groups_ * local_), cl::NDRange(local_), nullptr,
                               &kernel_events_[slot]);
    unsigned char* into = staging_host_ + slot * slot_bytes_;
    queue.enqueueReadBuffer(state_, CL_FALSE, 0, kGridStateInts * sizeof(cl_int), into);
    const auto s = scalars_.device(precision_, Access::Read);
    into += kGridStateInts * sizeof(cl_int);
    const std::size_t count = 2 + static_cast<std::size_t>(chunk_);
    if (precision_ == Precision::QuasiDouble) {
      queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, 4 * count, into);
      queue.enqueueReadBuffer(s.tail, CL_FALSE, 0, 4 * count, into + 4 * count, nullptr, &read_events_[slot]);
    } else {
      queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, bytes_per_element(precision_) * count, into, nullptr,
                              &read_events_[slot]);
    }
    queue.flush();  // submit now: the host waits on the previous launch meanwhile
  }

  // The kernel's arguments; `iterations` < 0 makes the launch a residency probe, which reads none of
  // the vectors and no row blocks (it gets the state buffer for them).
  void set_args(Vector& x, Vector& r, Vector& p, Vector& q, int iterations, double stop_rr) {
    KernelArgs args(kernel_, precision_);
    args.value(static_cast<cl_int>(n_));
    if (A_.format() == Format::Dia) {
      const Matrix::DiaPart& dia = A_.dia_part();
      args.value(static_cast<cl_int>(A_.cols())).value(static_cast<cl_int>(dia.diagonals));
      args.value(static_cast<cl_int>(dia.pitch)).value(dia.offsets).vector(A_.dia_values(precision_));
    } else {
      args.value(A_.csr_part().row_offsets).value(A_.csr_part().col_indices).vector(A_.csr_values(precision_));
    }
    args.vector(x.device(precision_, Access::ReadWrite))
        .vector(r.device(precision_, Access::ReadWrite))
        .vector(p.device(precision_, Access::ReadWrite))
        .vector(q.device(precision_, Access::ReadWrite))
        .vector(partials_.device(precision_, Access::ReadWrite))
        .vector(scalars_.device(precision_, Access::ReadWrite))
        .value(state_)
        .value(static_cast<cl_int>(iterations))
        .real(stop_rr);
    if (inv_diag_) args.vector(inv_diag_->device(precision_, Access::Read));
    if (balanced_) {
      if (iterations < 0) {
        args.value(cl_int{0}).value(state_).local(products_bytes_);
      } else {
        const Matrix::RowBlocks& blocks = A_.csr_row_blocks(blocks_);
        args.value(static_cast<cl_int>(blocks.count)).value(blocks.first_rows).local(products_bytes_);
      }
    }
  }

  // From groups_ (compute units x the parameter, at most) down, halving, to the first count whose
  // groups all run at once (runtime/co_resident_groups.hpp: one group per compute unit is taken as
  // running; a device that does not even hold that aborts the launches, and the solve falls back), and
  // the row blocks for it. The probe is a launch that only meets at one grid barrier, each group polling
  // at most kGridProbePolls times (about 20 ms on an H200 when they do not all run). It leaves a status in
  // the state, which reset() clears before the first launch.
  void settle_groups() {
    Context& context = *blas_.context();
    auto shape = [&](std::size_t groups) {
      make_row_blocks(groups);
      return "cg_persistent " + build_options_ + " local " + std::to_string(local_) + " groups " +
             std::to_string(groups) + " local bytes " + std::to_string(products_bytes_);
    };
    auto probe = [&](std::size_t groups) {
      auto& queue = context.queue();
      queue.enqueueFillBuffer(state_, cl_int{0}, 0, kGridStateInts * sizeof(cl_int));
      set_args(partials_, partials_, partials_, partials_, -kGridProbePolls, 0.0);
      queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(groups * local_), cl::NDRange(local_));
      cl_int state[kGridStateInts];
      queue.enqueueReadBuffer(state_, CL_TRUE, 0, sizeof state, state);
      return state[kGridStatus] == kGridReached;
    };
    groups_ = settle_co_resident_groups(context, groups_, compute_units_, shape, probe);
    make_row_blocks(groups_);
  }

  // -DBALANCED: the SpMV's row blocks for `groups` work-groups, and the local memory a block's products take.
  void make_row_blocks(std::size_t groups) {
    if (!balanced_) return;
    blocks_ = group_row_blocks(A_.nnz(), local_, blas_.params().spmv.csr_balanced_entries_per_item, groups,
                               blas_.context()->info(), bytes_per_element(precision_));
    products_bytes_ = static_cast<std::size_t>(blocks_.max_cost) * bytes_per_element(precision_);
  }

  struct Outcome {
    cl_int status = kGridRunning;
    int done = 0;
    double pq = 0;
    double rho = 0;          // r'r (Jacobi: r'z) at the launch's end
    std::vector<double> rr;  // r'r after each iteration done
  };
  // Waits for the launch in `slot`; `counted`: add its iterations to the Blas counters, unless it was
  // aborted (its groups all left at one barrier, after `done` iterations that the fallback throws away
  // with x; the launches that completed before it count, as work the device did).
  Outcome wait(int slot, bool counted) {
    read_events_[slot].wait();
    const unsigned char* from = staging_host_ + slot * slot_bytes_;
    cl_int state[kGridStateInts];
    std::memcpy(state, from, sizeof state);
    from += sizeof state;
    Outcome out;
    out.status = state[kGridStatus];
    out.done = std::clamp<int>(state[1], 0, chunk_);
    const int count = 2 + chunk_;
    out.rho = staged_real(from, precision_, count, 0);
    out.pq = staged_real(from, precision_, count, 1);
    for (int i = 0; i < out.done; ++i) out.rr.push_back(staged_real(from, precision_, count, 2 + i));
    const double done = counted && out.status != kGridAborted ? out.done : 0.0;
    blas_.record("cg_persistent", done * iteration_flops_, done * iteration_bytes_, {kernel_events_[slot]});
    return out;
  }

 private:
  Blas& blas_;
  Matrix& A_;
  Vector* inv_diag_;  // -DJACOBI: PCG with M = diag(A)
  Precision precision_;
  std::size_t n_;
  int chunk_;
  bool balanced_;  // -DBALANCED: the SpMV takes row blocks of about equal nonzeros, not LANES per row
  std::size_t local_ = 0, groups_ = 0, compute_units_ = 1;
  std::string build_options_;  // the kernel's, naming its shape for the residency probe
  cl::Kernel kernel_;
  Matrix::RowBlockShape blocks_;    // -DBALANCED: the SpMV's row blocks
  std::size_t products_bytes_ = 0;  // -DBALANCED: local memory for a block's products
  Vector partials_, scalars_;
  cl::Buffer state_, staging_;
  std::size_t slot_bytes_ = 0;
  unsigned char* staging_host_ = nullptr;
  std::array<cl::Event, kSlots> kernel_events_, read_events_;
  double iteration_flops_ = 0, iteration_bytes_ = 0;
};

}  // namespace

bool persistent_cg_supported(const Blas& blas, const Matrix& A) {
  return blas.location() == Location::Device && (A.format() == Format::Csr || A.format() == Format::Dia);
}

bool persistent_cg_preferred(const Blas& blas, const Matrix& A) {
  return blas.location() == Location::Device && cg_runs_persistent(CgPath::Auto, blas.params(), A.format(), A.stats());
}

bool cg_persistent(Blas& blas, Matrix& A, Jacobi* jacobi, Vector& b, Vector& x, bool x_is_zero,
                   const SolveOptions& options, SolveMonitor& monitor) {
  const auto& context = blas.context();
  const std::size_t n = b.size();
  Vector r(context, n, "cg.r"), p(context, n, "cg.p"), q(context, n, "cg.q");
  PersistentKernel kernel(blas, A, jacobi ? &jacobi->inverse_diagonal() : nullptr);
  // The initial guess, for a fallback after an aborted launch.
  std::optional<Vector> x_start;
  if (!x_is_zero) {
    x_start.emplace(context, n, "cg.x_start");
    blas.copy(x, *x_start);
  }

  // r = b - A x (already computed when `have_residual`);  p = r;  rho = r'r on the device. Jacobi:
  // p = z = M^-1 r, rho = r'z. Returns r'r and rho.
  auto start = [&](bool zero, bool have_residual) {
    if (!jacobi) {
      const DeviceScalar rr = start_cg(blas, A, b, x, r, p, zero, have_residual);
      kernel.reset(rr);
      return std::pair(rr.value(), rr.value());
    }
    if (!have_residual) compute_residual(blas, A, b, x, r, zero);
    jacobi->apply(r, p);
    const DeviceScalar rz = blas.dot_async(r, p), rr = blas.dot_async(r, r);
    kernel.reset(rz);
    return std::pair(rr.value(), rz.value());
  };
  const auto [rr0, rz0] = start(x_is_zero, false);
  if (!cg_device_started(monitor, jacobi != nullptr, rr0, rz0)) return true;

  // Launches in flight, oldest first: slot and iterations asked for.
  struct Launch {
    int slot, iterations;
  };
  std::vector<Launch> in_flight;
  int next_slot = 0;
  int examined = 0;  // iterations done and logged
  int asked = 0;     // iterations asked of the launches in flight
  auto oldest = [&] {
    const Launch l = in_flight.front();
    in_flight.erase(in_flight.begin());
    asked -= l.iterations;
    return l;
  };
  auto drain = [&] {
    while (!in_flight.empty()) kernel.wait(oldest().slot, false);
  };

  for (;;) {
    while (static_cast<int>(in_flight.size()) < PersistentKernel::kSlots && examined + asked < options.max_iterations) {
      const int iterations = std::min(kernel.chunk(), options.max_iterations - examined - asked);
      // The monitor's aim, lowered after a restart that found the recursive residual drifted.
      const double threshold = monitor.recursive_threshold();
      kernel.launch(x, r, p, q, iterations, threshold * threshold, next_slot);
      in_flight.push_back({next_slot, iterations});
      next_slot = (next_slot + 1) % PersistentKernel::kSlots;
      asked += iterations;
    }
    if (in_flight.empty()) return true;  // max_iterations spent (run_checked says so)
    const PersistentKernel::Outcome outcome = kernel.wait(oldest().slot, true);

    if (outcome.status == kGridAborted) {
      drain();
      if (x_is_zero) {
        set_zero(blas, x);
      } else {
        blas.copy(*x_start, x);
      }
      monitor.forget_iterations();
      return false;
    }
    bool reached = outcome.status == kGridReached;
    for (double value : outcome.rr) {
      ++examined;
      if (!monitor.check_finite(examined, "r'r", value)) {
        drain();
        return true;
      }
      monitor.record(examined, std::sqrt(value));
      reached = reached || monitor.reached(std::sqrt(value));
    }
    if (outcome.status == kGridBreakdown && !reached) {
      // p'q was not positive and finite (x and r are unchanged), or with Jacobi r'z after the iteration
      // logged last was not (a non-finite r'r was caught above). Where the host saw the tolerance
      // reached first, the check below confirms x instead.
      drain();
      if (!positive_curvature(monitor, examined + 1, outcome.pq)) return true;
      if (jacobi &&
          (!monitor.check_finite(examined, "r'z", outcome.rho) || !positive_rz(monitor, examined, outcome.rho)))
        return true;
      monitor.finish(SolveStatus::Breakdown, "p'Ap = " + format_number(outcome.pq) + " stopped the iteration");
      return true;
    }
    if (!reached) continue;
    // A launch after one that stopped does nothing. When only the host saw the tolerance reached (the
    // kernel compares r'r with the threshold's square, rounded in its precision), the next launch
    // went on iterating: log what it did before checking.
    bool stopped = outcome.status != kGridRunning;
    while (!in_flight.empty()) {
      const PersistentKernel::Outcome more = kernel.wait(oldest().slot, !stopped);
      if (stopped) continue;
      for (double value : more.rr) {
        if (!std::isfinite(value)) break;
        monitor.record(++examined, std::sqrt(value));
      }
      stopped = more.status != kGridRunning;
    }
    // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = r (M^-1 r).
    compute_residual(blas, A, b, x, r, false);
    const double rr = blas.dot(r, r);
    if (monitor.check_explicit(examined, std::sqrt(rr)) == AfterCheck::Stop) return true;
    const double rz = start(false, true).second;
    if (jacobi && !positive_rz(monitor, examined, rz)) return true;
  }
}

}  // namespace clkr::detail

namespace clkr {

bool cg_runs_persistent(CgPath path, const DeviceParams& params, Format format, const MatrixStats& stats) {
  if (format != Format::Csr && format != Format::Dia) return false;
  if (path == CgPath::Persistent) return true;
  const CgParams& cg = params.cg;
  if (path != CgPath::Auto || static_cast<std::size_t>(stats.rows) > cg.persistent_max_rows) return false;
  const bool balanced = format == Format::Csr && csr_balanced(params.spmv, stats.mean_row_length, stats.max_row_length);
  return !balanced || static_cast<std::size_t>(stats.nnz) <= cg.persistent_max_balanced_nnz;
}

}  // namespace clkr
