// The coarse levels' steps as data for kernels/precond/coarse_cycle.cl, and its launches.
#include "coarse_cycle.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "../../blas/csr_balanced.hpp"
#include "../../runtime/co_resident_groups.hpp"
#include "clkr/blas/kernel_args.hpp"

namespace clkr::detail::amg {
namespace {

// coarse_cycle.cl's steps (kOpInts ints each: kind, rows, row base, entry base, x, y, b, dinv, d, r,
// coefficient index, flags), kinds, flags and vector references.
constexpr int kOpInts = 12;
enum OpKind : cl_int { kCopy, kScale, kAddScaled, kChebStart, kChebFirst, kResidual, kChebStep, kSpmv, kBlock };
constexpr cl_int kFlagLast = 1, kFlagAccumulate = 2, kFlagSet = 4, kFlagPrev = 8;
constexpr cl_int kRefB = -1, kRefX = -2;
// Every this many launches the kernel's status is read back (asynchronously) to notice an aborted
// launch; a read after every launch would put a transfer between the cycle and the solver's next kernel.
constexpr std::uint64_t kStatusInterval = 8;

std::size_t element_bytes(Precision p) { return p == Precision::Double ? 8 : 4; }

// `count` elements of `from` (a matrix's values or a vector's device buffers) into `to` from element
// `offset` on.
template <class Buffers>
void copy_elements(CountedQueue& queue, Precision p, const Buffers& from, const Matrix::Values& to, std::int64_t offset,
                   std::int64_t count) {
  const std::size_t e = element_bytes(p);
  if (count == 0) return;
  queue.enqueueCopyBuffer(from.primary, to.primary, 0, offset * e, count * e);
  if (p == Precision::QuasiDouble) queue.enqueueCopyBuffer(from.tail, to.tail, 0, offset * e, count * e);
}

}  // namespace

// Where a level's matrices and vectors sit in the kernel's arrays.
struct CoarseCycle::Slot {
  struct Csr {
    Matrix* matrix = nullptr;
    cl_int row_base = 0, nnz_base = 0;
  };
  Csr A, R, P, B;  // B: the inverse node blocks (no matrix without node-block smoothing)
  std::int32_t rows = 0;
  cl_int b = 0, x = 0, r = 0, d0 = 0, d1 = 0, dinv = 0;  // vector offsets into the arena, or kRefB / kRefX
};

std::unique_ptr<CoarseCycle> CoarseCycle::make(Blas& blas, std::size_t first_level, std::vector<CoarseLevelView> levels,
                                               const AmgOptions& options) {
  if (blas.location() != Location::Device || levels.size() < 2) return nullptr;
  std::int64_t entries = 0, elements = 0;
  for (const CoarseLevelView& level : levels) {
    for (Matrix* m : {level.A, level.P, level.R, level.node_blocks}) {
      if (!m) continue;
      if (!reads(*m)) return nullptr;
      entries += m->nnz();
      elements += m->rows() + 1;
    }
    elements += 6 * static_cast<std::int64_t>(level.A->rows());
  }
  if (std::max(entries, elements) > std::numeric_limits<cl_int>::max()) return nullptr;
  return std::unique_ptr<CoarseCycle>(new CoarseCycle(blas, first_level, std::move(levels), options));
}

CoarseCycle::CoarseCycle(Blas& blas, std::size_t first_level, std::vector<CoarseLevelView> levels,
                         const AmgOptions& options)
    : blas_(blas),
      first_level_(first_level),
      levels_(std::move(levels)),
      options_(options),
      precision_(blas.precision()) {
  // The arenas' layout: every level's A (the coarsest's is its dense inverse), R and P, and its vectors.
  slots_.resize(levels_.size());
  std::int64_t row_base = 0, nnz_base = 0, vector_base = 0;
  auto place = [&](Matrix* m, Slot::Csr& csr) {
    csr.matrix = m;
    csr.row_base = static_cast<cl_int>(row_base);
    csr.nnz_base = static_cast<cl_int>(nnz_base);
    row_base += m->rows() + 1;
    nnz_base += m->nnz();
  };
  auto vector = [&](std::int32_t rows) {
    const auto at = static_cast<cl_int>(vector_base);
    vector_base += rows;
    return at;
  };
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    const CoarseLevelView& view = levels_[l];
    Slot& slot = slots_[l];
    slot.rows = view.A->rows();
    place(view.A, slot.A);
    slot.b = l == 0 ? kRefB : vector(slot.rows);
    slot.x = l == 0 ? kRefX : vector(slot.rows);
    if (l + 1 < levels_.size()) {
      place(view.R, slot.R);
      place(view.P, slot.P);
      if (view.node_blocks) place(view.node_blocks, slot.B);
      slot.r = vector(slot.rows);
      slot.d0 = vector(slot.rows);
      slot.d1 = vector(slot.rows);
      slot.dinv = vector(slot.rows);
    }
  }

  Context& context = *blas_.context();
  const std::size_t e = element_bytes(precision_);
  auto buffers = [&](std::int64_t count, const std::string& what) {
    Matrix::Values v;
    const std::size_t bytes = std::max<std::int64_t>(count, 1) * e;
    v.primary = context.allocate(bytes, what);
    if (precision_ == Precision::QuasiDouble) v.tail = context.allocate(bytes, what + " (tails)");
    return v;
  };
  row_offsets_ = context.allocate(row_base * sizeof(cl_int), "amg coarse cycle row offsets");
  cols_ = context.allocate(std::max<std::int64_t>(nnz_base, 1) * sizeof(cl_int), "amg coarse cycle columns");
  values_ = buffers(nnz_base, "amg coarse cycle values");
  arena_ = buffers(vector_base, "amg coarse cycle vectors");
  state_ = context.allocate(kGridStateInts * sizeof(cl_int), "amg coarse cycle state");
  context.queue().enqueueFillBuffer(state_, cl_int{0}, 0, kGridStateInts * sizeof(cl_int));
  staging_ =
      context.allocate(sizeof(cl_int), "amg coarse cycle status (pinned)", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
  status_host_ = static_cast<cl_int*>(
      context.queue().enqueueMapBuffer(staging_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, sizeof(cl_int)));
  *status_host_ = 0;
  copy_patterns();
  build_kernel();
  settle_groups();
  refresh();
}

CoarseCycle::~CoarseCycle() {
  try {  // destructors never throw: a failed unmap only leaks the mapping until the context goes
    if (status_host_) blas_.context()->queue().enqueueUnmapMemObject(staging_, status_host_);
  } catch (const cl::Error&) {
  }
}

void CoarseCycle::copy_patterns() {
  auto& queue = blas_.context()->queue();
  for (Slot& slot : slots_)
    for (Slot::Csr* csr : {&slot.A, &slot.R, &slot.P, &slot.B}) {
      if (!csr->matrix) continue;
      const Matrix::CsrPart& part = csr->matrix->csr_part();
      queue.enqueueCopyBuffer(part.row_offsets, row_offsets_, 0, csr->row_base * sizeof(cl_int),
                              (csr->matrix->rows() + 1) * sizeof(cl_int));
      if (csr->matrix->nnz() > 0)
        queue.enqueueCopyBuffer(part.col_indices, cols_, 0, csr->nnz_base * sizeof(cl_int),
                                csr->matrix->nnz() * sizeof(cl_int));
    }
}

// Work-items per row: the parameter, or about two entries each (up to 32) by the operators' mean row
// length, the SpMVs that dominate (R's rows are longer, P's shorter): the rows are few and each gather
// waits for the L2, so short chains beat busy work-items (on an H200, poisson3d:128's levels 2-3, mean
// 48: 16 lanes 48 us a launch, 8 lanes 62, 4 lanes 80; x staged in local memory first changed nothing,
// 49 against 50 us: docs/performance-amg.md).
void CoarseCycle::build_kernel() {
  Context& context = *blas_.context();
  const AmgCycleParams& params = blas_.params().amg_cycle;
  local_ = floor_power_of_two(std::min(params.work_group_size, context.info().max_work_group_size));
  std::int64_t rows = 0, nnz = 0;
  for (const Slot& slot : slots_) {
    rows += slot.rows;
    nnz += slot.A.matrix->nnz();
  }
  const double mean = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  for (;;) {
    lanes_ = params.lanes;
    if (lanes_ == 0) {
      lanes_ = 1;
      while (lanes_ * 2 <= std::min<std::size_t>(32, local_) && 2.0 * lanes_ * 2 <= mean) lanes_ *= 2;
    }
    lanes_ = std::min(lanes_, local_);
    const std::string options = precision_build_option(precision_) + " -DWG=" + std::to_string(local_) +
                                " -DLANES=" + std::to_string(lanes_) +
                                " -DSPIN_LIMIT=" + std::to_string(blas_.params().cg.persistent_spin_limit);
    kernel_ = context.kernel("precond/coarse_cycle.cl", "amg_coarse_cycle", options);
    const auto fits = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
    if (fits >= local_ || local_ == 1) break;
    local_ = floor_power_of_two(fits);
  }
  const std::size_t rows_per_block = local_ / lanes_;
  const std::size_t useful = (static_cast<std::size_t>(slots_.front().rows) + rows_per_block - 1) / rows_per_block;
  const std::size_t compute_units = std::max<std::size_t>(context.info().compute_units, 1);
  groups_ = std::max<std::size_t>(1, std::min(compute_units * params.groups_per_compute_unit, useful));
}

// As many groups as run at once (runtime/co_resident_groups.hpp), probed once per context and shape.
void CoarseCycle::settle_groups() {
  Context& context = *blas_.context();
  const std::size_t compute_units = std::max<std::size_t>(context.info().compute_units, 1);
  auto& queue = context.queue();
  auto shape = [&](std::size_t groups) {
    return "amg_coarse_cycle " + precision_build_option(precision_) + " local " + std::to_string(local_) + " lanes " +
           std::to_string(lanes_) + " groups " + std::to_string(groups);
  };
  auto probe = [&](std::size_t groups) {
    queue.enqueueFillBuffer(state_, cl_int{0}, 0, kGridStateInts * sizeof(cl_int));
    KernelArgs args(kernel_, precision_);
    args.value(state_).value(cl_int{0}).value(cl_int{-kGridProbePolls}).value(state_).value(state_);
    args.vector(values_).vector(values_).vector(arena_).vector(arena_).vector(arena_);
    args.value(cl_int{0}).value(state_).value(cl_int{0});
    queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(groups * local_), cl::NDRange(local_));
    cl_int state[kGridStateInts];
    queue.enqueueReadBuffer(state_, CL_TRUE, 0, sizeof state, state);
    queue.enqueueFillBuffer(state_, cl_int{0}, 0, kGridStateInts * sizeof(cl_int));
    return state[kGridStatus] == kGridReached;
  };
  groups_ = settle_co_resident_groups(context, groups_, compute_units, shape, probe);
}

void CoarseCycle::refresh() {
  copy_values();
  write_steps();
}

void CoarseCycle::set_first_operator(Matrix& A) {
  levels_.front().A = &A;
  slots_.front().A.matrix = &A;
}

void CoarseCycle::copy_values() {
  auto& queue = blas_.context()->queue();
  for (std::size_t l = 0; l < slots_.size(); ++l) {
    Slot& slot = slots_[l];
    for (Slot::Csr* csr : {&slot.A, &slot.R, &slot.P, &slot.B})
      if (csr->matrix)
        copy_elements(queue, precision_, csr->matrix->csr_values(precision_), values_, csr->nnz_base,
                      csr->matrix->nnz());
    if (levels_[l].inv_diag)
      copy_elements(queue, precision_, levels_[l].inv_diag->device(precision_, Access::Read), arena_, slot.dinv,
                    slot.rows);
  }
}

// The steps of the first level's cycle from x = 0 and from a given x, one list after the other, as
// VCycle::cycle (cycle.cpp) launches them; and their coefficients, two per step.
void CoarseCycle::write_steps() {
  std::vector<cl_int> ops;
  std::vector<double> coef;
  double bytes = 0, flops = 0;
  const auto e = static_cast<double>(bytes_per_element(precision_));
  auto emit = [&](cl_int kind, std::int32_t rows, const Slot::Csr* m, cl_int x, cl_int y, cl_int b, cl_int dinv,
                  cl_int d, cl_int r, double c1, double c2, cl_int flags) {
    const cl_int op[kOpInts] = {
        kind, rows, m ? m->row_base : 0, m ? m->nnz_base : 0, x, y, b, dinv, d, r, static_cast<cl_int>(coef.size()),
        flags};
    ops.insert(ops.end(), op, op + kOpInts);
    coef.push_back(c1);
    coef.push_back(c2);
    // Bytes: the matrix's entries and offsets, and the vectors' elements each step reads or writes.
    static const double vectors[] = {2, 3, 4, 4, 5, 3, 7, 2, 2};
    double moved = vectors[kind] + (kind == kSpmv && (flags & kFlagAccumulate) ? 1 : 0);
    if (kind == kChebStep && (flags & kFlagLast)) moved -= 2;
    if (kind == kBlock)
      moved += ((flags & kFlagSet) ? 0 : 1) + ((flags & kFlagLast) ? 0 : 1) + ((flags & kFlagPrev) ? 1 : 0);
    bytes += moved * e * rows;
    flops += 3.0 * rows;
    if (m) {
      bytes += static_cast<double>(m->matrix->nnz()) * (e + 4) + 4.0 * (rows + 1);
      flops += 2.0 * static_cast<double>(m->matrix->nnz());
    }
  };
  // One level's cycle, as VCycle::cycle: pre-smoothing, residual, restriction, the coarser level's
  // visits, prolongation, post-smoothing; the coarsest level one SpMV with its inverse.
  auto cycle = [&](auto&& self, std::size_t l, bool x_is_zero) -> void {
    const Slot& s = slots_[l];
    if (l + 1 == slots_.size()) {
      emit(kSpmv, s.rows, &s.A, s.b, s.x, 0, 0, 0, 0, 0, 0, 0);
      return;
    }
    const Slot& next = slots_[l + 1];
    auto smooth = [&](bool zero, int sweeps) {
      auto role = [&](RelaxRole r) {
        switch (r) {
          case RelaxRole::B:
            return s.b;
          case RelaxRole::X:
            return s.x;
          case RelaxRole::R:
            return s.r;
          case RelaxRole::D0:
            return s.d0;
          case RelaxRole::D1:
            return s.d1;
        }
        return s.r;
      };
      // With node blocks, as Relaxation::apply_with_blocks: B^-1 x in place of dinv .* x, and a
      // Chebyshev step's residual a step of its own (B^-1 needs the residuals of the whole node).
      auto block_step = [&](const RelaxStep& step) {
        const cl_int in = role(step.in);
        switch (step.kind) {
          case RelaxStep::Kind::ScaleByDiagonal:
            emit(kBlock, s.rows, &s.B, in, s.x, 0, 0, 0, 0, 0, step.c2, kFlagSet | kFlagLast);
            break;
          case RelaxStep::Kind::AddScaledByDiagonal:
            emit(kBlock, s.rows, &s.B, in, s.x, 0, 0, 0, 0, 0, step.c2, kFlagLast);
            break;
          case RelaxStep::Kind::Residual:
            emit(kResidual, s.rows, &s.A, s.x, s.r, s.b, 0, 0, 0, 0, 0, 0);
            break;
          case RelaxStep::Kind::ChebyshevStart:
            emit(kBlock, s.rows, &s.B, in, s.x, 0, 0, role(step.d), 0, 0, step.c2, kFlagSet);
            break;
          case RelaxStep::Kind::ChebyshevFirst:
            emit(kBlock, s.rows, &s.B, in, s.x, 0, 0, role(step.d), 0, 0, step.c2, 0);
            break;
          case RelaxStep::Kind::ChebyshevSpmvStep:
            emit(kResidual, s.rows, &s.A, role(step.d), s.r, in, 0, 0, 0, 0, 0, 0);
            emit(kBlock, s.rows, &s.B, s.r, s.x, role(step.d), 0, role(step.d_next), 0, step.c1, step.c2,
                 kFlagPrev | (step.last ? kFlagLast : 0));
            break;
        }
      };
      for (const RelaxStep& step : levels_[l].relaxation->schedule(zero, sweeps)) {
        if (s.B.matrix) {
          block_step(step);
          continue;
        }
        switch (step.kind) {
          case RelaxStep::Kind::ScaleByDiagonal:
            emit(kScale, s.rows, nullptr, role(step.in), s.x, 0, s.dinv, 0, 0, 0, step.c2, 0);
            break;
          case RelaxStep::Kind::AddScaledByDiagonal:
            emit(kAddScaled, s.rows, nullptr, role(step.in), s.x, 0, s.dinv, 0, 0, 0, step.c2, 0);
            break;
          case RelaxStep::Kind::Residual:
            emit(kResidual, s.rows, &s.A, s.x, s.r, s.b, 0, 0, 0, 0, 0, 0);
            break;
          case RelaxStep::Kind::ChebyshevStart:
            emit(kChebStart, s.rows, nullptr, role(step.in), s.x, 0, s.dinv, role(step.d), 0, 0, step.c2, 0);
            break;
          case RelaxStep::Kind::ChebyshevFirst:
            emit(kChebFirst, s.rows, nullptr, role(step.in), s.x, 0, s.dinv, role(step.d), 0, 0, step.c2, 0);
            break;
          case RelaxStep::Kind::ChebyshevSpmvStep:
            emit(kChebStep, s.rows, &s.A, role(step.d), s.x, role(step.in), s.dinv, role(step.d_next), s.r, step.c1,
                 step.c2, step.last ? kFlagLast : 0);
            break;
        }
      }
    };
    if (options_.pre_sweeps > 0) {
      smooth(x_is_zero, options_.pre_sweeps);
      x_is_zero = false;
    }
    if (x_is_zero) {
      emit(kCopy, s.rows, nullptr, s.b, s.r, 0, 0, 0, 0, 0, 0, 0);
    } else {
      emit(kResidual, s.rows, &s.A, s.x, s.r, s.b, 0, 0, 0, 0, 0, 0);
    }
    emit(kSpmv, next.rows, &s.R, s.r, next.b, 0, 0, 0, 0, 0, 0, 0);
    const int visits = l + 2 == slots_.size() ? 1 : options_.cycle_index;
    for (int visit = 0; visit < visits; ++visit) self(self, l + 1, visit == 0);
    emit(kSpmv, s.rows, &s.P, next.x, s.x, 0, 0, 0, 0, 0, 0, x_is_zero ? 0 : kFlagAccumulate);
    if (options_.post_sweeps > 0) smooth(false, options_.post_sweeps);
  };
  cycle(cycle, 0, true);
  zero_ops_ = ops.size() / kOpInts;
  zero_bytes_ = bytes;
  zero_flops_ = flops;
  bytes = flops = 0;
  cycle(cycle, 0, false);
  warm_ops_ = ops.size() / kOpInts - zero_ops_;
  warm_bytes_ = bytes;
  warm_flops_ = flops;

  // The steps' ints depend on the levels' patterns and the options only: uploaded once. The
  // coefficients follow the smoothers' bounds: after every refresh, in the precision (and on the device
  // now, not at the next application).
  Context& context = *blas_.context();
  if (!ops_()) {
    ops_ = context.allocate(ops.size() * sizeof(cl_int), "amg coarse cycle steps");
    context.queue().enqueueWriteBuffer(ops_, CL_TRUE, 0, ops.size() * sizeof(cl_int), ops.data());
  }
  if (coef_) {
    coef_->assign(coef);
  } else {
    coef_.emplace(blas_.context(), coef, "amg coarse cycle coefficients");
  }
  coef_->device(precision_, Access::Read);
}

bool CoarseCycle::launch_was_aborted() {
  if (aborted_) return true;
  if (!status_read_()) return false;
  if (status_read_.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE) return false;
  aborted_ = *status_host_ == kGridAborted;
  return aborted_;
}

bool CoarseCycle::run(Vector& b, Vector& x, bool x_is_zero) {
  if (launch_was_aborted()) return false;
  auto& queue = blas_.context()->queue();
  const std::size_t nops = x_is_zero ? zero_ops_ : warm_ops_;
  const std::int64_t barriers = static_cast<std::int64_t>(nops) - 1;
  // The barrier counter only grows: zeroed before it could pass 2^30 (a fill, once in many launches).
  if (arrivals_ + barriers * static_cast<std::int64_t>(groups_) > (std::int64_t{1} << 30)) {
    queue.enqueueFillBuffer(state_, cl_int{0}, 0, sizeof(cl_int));
    arrivals_ = 0;
  }
  KernelArgs args(kernel_, precision_);
  args.value(ops_)
      .value(static_cast<cl_int>(x_is_zero ? 0 : zero_ops_))
      .value(static_cast<cl_int>(nops))
      .value(row_offsets_)
      .value(cols_)
      .vector(values_)
      .vector(coef_->device(precision_, Access::Read))
      .vector(arena_)
      .vector(b.device(precision_, Access::Read))
      .vector(x.device(precision_, x_is_zero ? Access::Write : Access::ReadWrite))
      .value(static_cast<cl_int>(slots_.front().rows))
      .value(state_)
      .value(static_cast<cl_int>(arrivals_));
  cl::Event event;
  queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(groups_ * local_), cl::NDRange(local_), nullptr,
                             &event);
  arrivals_ += barriers * static_cast<std::int64_t>(groups_);
  if (++launches_ % kStatusInterval == 0)
    queue.enqueueReadBuffer(state_, CL_FALSE, kGridStatus * sizeof(cl_int), sizeof(cl_int), status_host_, nullptr,
                            &status_read_);
  blas_.record("amg_coarse_cycle", x_is_zero ? zero_flops_ : warm_flops_, x_is_zero ? zero_bytes_ : warm_bytes_,
               {event});
  return true;
}

}  // namespace clkr::detail::amg
