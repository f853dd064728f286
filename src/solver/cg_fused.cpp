// FusedCgSteps: launches of kernels/solver/cg.cl, their work counted into the Blas counters.
#include "cg_fused.hpp"

#include <algorithm>
#include <cstring>

#include "../blas/csr_balanced.hpp"
#include "../blas/spmv.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "solver_core.hpp"

namespace clkr::detail {
namespace {

// The per-element bytes of a vector in this precision.
double element_bytes(Precision p) { return static_cast<double>(bytes_per_element(p)); }

}  // namespace

FusedLaunchShape fused_launch_shape(const Blas& blas, std::size_t n) {
  const DeviceInfo& info = blas.context()->info();
  const DeviceParams& params = blas.params();
  FusedLaunchShape shape;
  shape.chunked = params.blas1.variant == Blas1Variant::Chunked;
  if (shape.chunked) {
    shape.local = 1;
    shape.groups = std::max<std::size_t>(info.compute_units, 1) * 4;
  } else {
    shape.local = std::min(params.reduction.work_group_size, info.max_work_group_size);
    shape.groups = std::max<std::size_t>(info.compute_units, 1) * params.reduction.groups_per_compute_unit;
  }
  shape.groups = std::max<std::size_t>(1, std::min(shape.groups, (n + shape.local - 1) / shape.local));
  shape.chunk = static_cast<int>((n + shape.groups * shape.local - 1) / (shape.groups * shape.local));
  return shape;
}

FusedCgSteps::FusedCgSteps(Blas& blas, Matrix& A, std::optional<Precision> preconditioner)
    : blas_(blas),
      A_(A),
      precision_(blas.precision()),
      single_preconditioner_(precision_ == Precision::Double && preconditioner == Precision::Single),
      n_(static_cast<std::size_t>(A.rows())),
      pq_partials_(blas.context(), 1, "cg.pq_partials"),
      rr_partials_(blas.context(), 1, "cg.rr_partials"),
      rz_partials_(blas.context(), 1, "cg.rz_partials"),
      scalars_(blas.context(), kScalars, "cg.scalars") {
  Context& context = *blas.context();
  const DeviceParams& params = blas.params();
  const FusedLaunchShape shape = fused_launch_shape(blas, n_);
  chunked_ = shape.chunked;
  local_ = shape.local;
  groups_ = shape.groups;
  chunk_ = shape.chunk;

  std::string options = precision_build_option(precision_) + " -DWG=" + std::to_string(local_) +
                        row_sum_build_options(params.spmv, precision_) +
                        stream_loads_option(params.spmv, context.info(), csr_balanced_applies(params.spmv, A));
  if (chunked_) options += " -DCG_CHUNKED";
  options += offset_build_option(A);
  const bool short_rows = A.stats().mean_row_length < params.spmv.csr_vector_min_mean_row_length;
  spmv_groups_ = groups_;
  if (csr_balanced_applies(params.spmv, A)) {
    step1_ = Step1::CsrBalanced;
    if (params.spmv.csr_balanced_blocks == RowBlocking::WorkItem) {  // a block per work-item of the grid
      spmv_dot_ = context.kernel("solver/cg_balanced.cl", "cg_spmv_csr_balanced_rows_dot", options);
      blocks_ = item_row_blocks(A, groups_ * local_);
    } else {  // as many groups as make blocks of entries_per_item entries per work-item, at most the grid
      spmv_dot_ = context.kernel("solver/cg_balanced.cl", "cg_spmv_csr_balanced_dot", options);
      const std::size_t per_block = local_ * params.spmv.csr_balanced_entries_per_item;
      const auto wanted = static_cast<std::size_t>((A.nnz() + per_block - 1) / per_block);
      spmv_groups_ = std::max<std::size_t>(1, std::min(wanted, std::max<std::size_t>(context.info().compute_units, 1) *
                                                                   params.reduction.groups_per_compute_unit));
      blocks_ = group_row_blocks(A.nnz(), local_, params.spmv.csr_balanced_entries_per_item, spmv_groups_,
                                 context.info(), bytes_per_element(precision_));
      products_bytes_ = static_cast<std::size_t>(blocks_.max_cost) * element_bytes(precision_);
    }
  } else if (A.format() == Format::Csr && short_rows) {
    step1_ = Step1::CsrFused;
    spmv_dot_ = context.kernel("solver/cg.cl", "cg_spmv_csr_dot", options);
  } else if (A.format() == Format::Ell) {
    step1_ = Step1::EllFused;
    spmv_dot_ = context.kernel("solver/cg.cl", "cg_spmv_ell_dot", options);
  } else if (A.format() == Format::Sell) {
    step1_ = Step1::SellFused;
    spmv_dot_ = context.kernel("solver/cg_sell.cl", "cg_spmv_sell_dot", options);
  } else if (A.format() == Format::Dia) {
    step1_ = Step1::DiaFused;
    // Tiles where a work-item walks a contiguous chunk of rows (CPUs), rows one at a time elsewhere.
    spmv_dot_ = context.kernel("solver/cg_dia.cl", "cg_spmv_dia_dot",
                               options + (chunked_ ? dia_tile_option(params.spmv) : std::string()));
  } else {
    step1_ = Step1::SpmvThenDot;
  }
  const std::string mixed = single_preconditioner_ ? options + " -DCG_SINGLE_PRECONDITIONER" : options;
  dot_partials_ = context.kernel("solver/cg.cl", "cg_dot_partials", options);
  dot_rz_ = context.kernel("solver/cg.cl", "cg_dot_partials", mixed);
  update_xr_ = context.kernel("solver/cg.cl", "cg_update_xr", mixed);
  update_p_ = context.kernel("solver/cg.cl", "cg_update_p", options);
  update_p_preconditioned_ = context.kernel("solver/cg.cl", "cg_update_p_preconditioned", mixed);
  pq_partials_ = Vector(blas.context(), spmv_groups_, "cg.pq_partials");
  rr_partials_ = Vector(blas.context(), groups_, "cg.rr_partials");
  rz_partials_ = Vector(blas.context(), groups_, "cg.rz_partials");
  staging_ = context.allocate(kReadSlots * kSlotBytes, "cg.scalar staging (pinned)",
                              CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
  staging_host_ = static_cast<unsigned char*>(
      context.queue().enqueueMapBuffer(staging_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, kReadSlots * kSlotBytes));
}

double staged_real(const unsigned char* bytes, Precision p, int count, int i) {
  if (p == Precision::Double) {
    double v;
    std::memcpy(&v, bytes + 8 * i, 8);
    return v;
  }
  float head;
  std::memcpy(&head, bytes + 4 * i, 4);
  if (p == Precision::Single) return head;
  float tail;
  std::memcpy(&tail, bytes + 4 * (count + i), 4);
  return static_cast<double>(head) + static_cast<double>(tail);
}

DeviceScalar start_cg(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, Vector& p, bool x_is_zero,
                      bool have_residual) {
  if (!have_residual) compute_residual(blas, A, b, x, r, x_is_zero);
  blas.copy(r, p);
  return blas.dot_async(r, r);
}

void store_scalar(Context& context, const DeviceScalar& value, Vector& block, std::size_t index) {
  const Precision p = value.precision();
  auto s = block.device(p, Access::ReadWrite);
  auto& queue = context.queue();
  if (p == Precision::QuasiDouble) {
    // The DeviceScalar holds (head, tail) interleaved; a vector keeps heads and tails apart.
    queue.enqueueCopyBuffer(value.buffer(), s.primary, 0, 4 * index, 4);
    queue.enqueueCopyBuffer(value.buffer(), s.tail, 4, 4 * index, 4);
  } else {
    const std::size_t bytes = bytes_per_element(p);
    queue.enqueueCopyBuffer(value.buffer(), s.primary, 0, bytes * index, bytes);
  }
}

void FusedCgSteps::set_rho(const DeviceScalar& rr) {
  rho_slot_ = 0;
  store_scalar(*blas_.context(), rr, scalars_, 0);
}

void FusedCgSteps::spmv_dot(Vector& p, Vector& q) {
  Context& context = *blas_.context();
  const cl::NDRange global(groups_ * local_), local(local_);
  const double e = element_bytes(precision_);
  if (step1_ == Step1::SpmvThenDot) {
    blas_.spmv(1.0, A_, p, 0.0, q);
    KernelArgs(dot_partials_, precision_)
        .value(static_cast<cl_int>(n_))
        .value(static_cast<cl_int>(chunk_))
        .vector(p.device(precision_, Access::Read))
        .vector(q.device(precision_, Access::Read))
        .vector(pq_partials_.device(precision_, Access::Write))
        .local(local_ * e);
    cl::Event event;
    context.queue().enqueueNDRangeKernel(dot_partials_, cl::NullRange, global, local, nullptr, &event);
    blas_.record("cg_dot_partials", 2.0 * n_, 2.0 * n_ * e, {event});
    return;
  }
  const bool csr = step1_ == Step1::CsrFused || step1_ == Step1::CsrBalanced;
  const Matrix::Values values = csr                          ? A_.csr_values(precision_)
                                : step1_ == Step1::SellFused ? A_.sell_values(precision_)
                                : step1_ == Step1::DiaFused  ? A_.dia_values(precision_)
                                                             : A_.ell_values(precision_);
  KernelArgs args(spmv_dot_, precision_);
  if (step1_ == Step1::CsrBalanced) {
    const Matrix::RowBlocks& blocks = A_.csr_row_blocks(blocks_);
    args.value(static_cast<cl_int>(blocks.count)).value(blocks.first_rows);
  } else {
    args.value(static_cast<cl_int>(n_)).value(static_cast<cl_int>(chunk_));
  }
  if (csr) {
    args.value(A_.csr_part().row_offsets).value(A_.csr_part().col_indices);
  } else if (step1_ == Step1::SellFused) {
    const Matrix::SellPart& sell = A_.sell_part();
    args.value(static_cast<cl_int>(sell.slice_height)).value(sell.slice_offsets).value(sell.rows);
    args.value(sell.col_indices);
  } else if (step1_ == Step1::DiaFused) {
    const Matrix::DiaPart& dia = A_.dia_part();
    args.value(static_cast<cl_int>(A_.cols())).value(static_cast<cl_int>(dia.diagonals));
    args.value(static_cast<cl_int>(dia.pitch)).value(dia.offsets);
  } else {
    args.value(static_cast<cl_int>(A_.ell_part().width))
        .value(static_cast<cl_int>(A_.ell_part().pitch))
        .value(A_.ell_part().col_indices);
  }
  args.vector(values)
      .vector(p.device(precision_, Access::Read))
      .vector(q.device(precision_, Access::Write))
      .vector(pq_partials_.device(precision_, Access::Write))
      .local(local_ * e);
  if (products_bytes_ > 0) args.local(products_bytes_);
  cl::Event event;
  context.queue().enqueueNDRangeKernel(spmv_dot_, cl::NullRange, cl::NDRange(spmv_groups_ * local_), local, nullptr,
                                       &event);
  // The SpMV's own traffic (beta = 0) plus nothing more: p'q reuses the p and q elements in registers.
  const OpCost cost = spmv_cost(A_, precision_, 0.0);
  blas_.record("cg_spmv_dot", cost.flops + 2.0 * n_, cost.bytes, {event});
}

void FusedCgSteps::update_xr(Vector& x, Vector& r, Vector& p, Vector& q, Vector* join_into) {
  const double e = element_bytes(precision_);
  const Vector::DeviceBuffers xb = x.device(precision_, Access::ReadWrite);
  KernelArgs args(update_xr_, precision_);
  args.value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(rho_slot_))
      .value(static_cast<cl_int>(spmv_groups_))
      .vector(pq_partials_.device(precision_, Access::Read))
      .vector(scalars_.device(precision_, Access::ReadWrite))
      .vector(p.device(precision_, Access::Read))
      .vector(q.device(precision_, Access::Read))
      .vector(xb)
      .vector(r.device(precision_, Access::ReadWrite))
      .vector(rr_partials_.device(precision_, Access::Write))
      .vector(join_into ? join_into->device(precision_, Access::ReadWrite) : xb)  // not read without a join
      .value(static_cast<cl_int>(join_into != nullptr));
  if (single_preconditioner_) args.value(r.device_single_alongside_double());
  args.local(local_ * e);
  cl::Event event;
  blas_.context()->queue().enqueueNDRangeKernel(update_xr_, cl::NullRange, cl::NDRange(groups_ * local_),
                                                cl::NDRange(local_), nullptr, &event);
  // Reads x, p, r, q and writes x, r: 6n elements (and r's single copy: 4 bytes more a row); 6n flops.
  // A join reads and writes join_into too: 8n elements, 7n flops.
  const double elements = join_into ? 8.0 : 6.0;
  blas_.record("cg_update_xr", (join_into ? 7.0 : 6.0) * n_,
               elements * n_ * e + (single_preconditioner_ ? 4.0 * n_ : 0.0), {event});
}

void FusedCgSteps::update_p(Vector& r, Vector& p) {
  const double e = element_bytes(precision_);
  KernelArgs(update_p_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(rho_slot_))
      .value(static_cast<cl_int>(groups_))
      .vector(rr_partials_.device(precision_, Access::Read))
      .vector(scalars_.device(precision_, Access::ReadWrite))
      .vector(r.device(precision_, Access::Read))
      .vector(p.device(precision_, Access::ReadWrite))
      .local(local_ * e);
  cl::Event event;
  blas_.context()->queue().enqueueNDRangeKernel(update_p_, cl::NullRange, cl::NDRange(groups_ * local_),
                                                cl::NDRange(local_), nullptr, &event);
  // Reads r, p and writes p: 3n elements; 2n flops.
  blas_.record("cg_update_p", 2.0 * n_, 3.0 * n_ * e, {event});
  rho_slot_ = 1 - rho_slot_;
  preconditioned_ = false;
}

void FusedCgSteps::dot_rz(Vector& r, Vector& z) {
  const double e = element_bytes(precision_), ez = element_bytes(z_precision());
  KernelArgs(dot_rz_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .vector(r.device(precision_, Access::Read))
      .vector(z.device(z_precision(), Access::Read))
      .vector(rz_partials_.device(precision_, Access::Write))
      .local(local_ * e);
  cl::Event event;
  blas_.context()->queue().enqueueNDRangeKernel(dot_rz_, cl::NullRange, cl::NDRange(groups_ * local_),
                                                cl::NDRange(local_), nullptr, &event);
  blas_.record("cg_dot_rz", 2.0 * n_, n_ * (e + ez), {event});
}

void FusedCgSteps::update_p_preconditioned(Vector& z, Vector& p) {
  const double e = element_bytes(precision_), ez = element_bytes(z_precision());
  KernelArgs(update_p_preconditioned_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(rho_slot_))
      .value(static_cast<cl_int>(groups_))
      .vector(rz_partials_.device(precision_, Access::Read))
      .vector(rr_partials_.device(precision_, Access::Read))
      .vector(scalars_.device(precision_, Access::ReadWrite))
      .vector(z.device(z_precision(), Access::Read))
      .vector(p.device(precision_, Access::ReadWrite))
      .local(local_ * e);
  cl::Event event;
  blas_.context()->queue().enqueueNDRangeKernel(update_p_preconditioned_, cl::NullRange, cl::NDRange(groups_ * local_),
                                                cl::NDRange(local_), nullptr, &event);
  // Reads z, p and writes p: 3n elements; 2n flops.
  blas_.record("cg_update_p", 2.0 * n_, n_ * (2.0 * e + ez), {event});
  rho_slot_ = 1 - rho_slot_;
  preconditioned_ = true;
}

FusedCgSteps::~FusedCgSteps() {
  // Destructors never throw: a failed unmap only leaks the staging mapping until the context goes.
  try {
    if (staging_host_) blas_.context()->queue().enqueueUnmapMemObject(staging_, staging_host_);
  } catch (const cl::Error&) {
  }
}

void FusedCgSteps::read_scalars(int slot) {
  read_rho_slot_[slot] = rho_slot_;
  read_preconditioned_[slot] = preconditioned_;
  auto s = scalars_.device(precision_, Access::Read);
  auto& queue = blas_.context()->queue();
  unsigned char* into = staging_host_ + slot * kSlotBytes;
  if (precision_ == Precision::QuasiDouble) {
    // Heads and tails live in separate buffers: the heads land first, then the tails.
    queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, 4 * kScalars, into);
    queue.enqueueReadBuffer(s.tail, CL_FALSE, 0, 4 * kScalars, into + 4 * kScalars, nullptr, &read_events_[slot]);
  } else {
    queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, kScalars * bytes_per_element(precision_), into, nullptr,
                            &read_events_[slot]);
  }
}

FusedCgSteps::Scalars FusedCgSteps::wait_scalars(int slot) {
  read_events_[slot].wait();
  const unsigned char* from = staging_host_ + slot * kSlotBytes;
  const int count = static_cast<int>(kScalars);
  Scalars out;
  out.rho = staged_real(from, precision_, count, read_rho_slot_[slot]);
  out.pq = staged_real(from, precision_, count, 2);
  out.rr = read_preconditioned_[slot] ? staged_real(from, precision_, count, 3) : out.rho;
  return out;
}

}  // namespace clkr::detail
