// BatchedCgSteps: launches of kernels/solver/batched_cg.cl (and spmv/csr_multi.cl), counted into the
// Blas counters like the fused CG's kernels.
#include "batched_cg_steps.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "../blas/spmv.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

constexpr int kScalarsPerColumn = 4;  // rho (two slots), p'q, r'r: batched_cg.cl's S_INDEX

}  // namespace

bool batched_cg_supported(const Blas& blas, const Matrix& A, std::size_t k) {
  const std::size_t batch = std::min<std::size_t>(k, BatchedCgSteps::kMaxColumns);
  return blas.location() == Location::Device && A.format() == Format::Csr &&
         static_cast<std::size_t>(A.rows()) * std::max<std::size_t>(batch, 1) < static_cast<std::size_t>(INT_MAX);
}

BatchedCgSteps::BatchedCgSteps(Blas& blas, Matrix& A, int k, Vector* inv_diag)
    : blas_(blas),
      A_(A),
      k_(k),
      inv_diag_(inv_diag),
      precision_(blas.precision()),
      n_(static_cast<std::size_t>(A.rows())),
      pq_partials_(blas.context(), 1, "bcg.pq_partials"),
      rr_partials_(blas.context(), 1, "bcg.rr_partials"),
      rz_partials_(blas.context(), 1, "bcg.rz_partials"),
      scalars_(blas.context(), static_cast<std::size_t>(kScalarsPerColumn) * std::max(k, 1), "bcg.scalars") {
  if (k < 1 || k > kMaxColumns || !batched_cg_supported(blas, A, static_cast<std::size_t>(k)))
    throw Error("batched CG: needs a device Blas, a CSR matrix and 1 to " + std::to_string(kMaxColumns) +
                " columns (k = " + std::to_string(k) + ")");
  Context& context = *blas.context();
  // The fused CG's launch shape, from the same DeviceParams.
  const FusedLaunchShape shape = fused_launch_shape(blas, n_);
  local_ = shape.local;
  groups_ = shape.groups;
  chunk_ = shape.chunk;

  std::string options =
      precision_build_option(precision_) + " -DWG=" + std::to_string(local_) + " -DBK=" + std::to_string(k);
  if (shape.chunked) options += " -DROWS_CHUNKED";
  options += offset_build_option(A);
  spmm_ = context.kernel("spmv/csr_multi.cl", "spmm_csr", options);
  spmm_dot_ = context.kernel("solver/batched_cg.cl", "bcg_spmm_dot", options);
  update_xr_ = context.kernel("solver/batched_cg.cl", inv_diag ? "bcg_update_xr_jacobi" : "bcg_update_xr", options);
  update_p_ = context.kernel("solver/batched_cg.cl", "bcg_update_p", options);
  get_column_ = context.kernel("solver/batched_cg.cl", "bcg_get_column", options);
  set_column_ = context.kernel("solver/batched_cg.cl", "bcg_set_column", options);
  const std::size_t partials = groups_ * static_cast<std::size_t>(k);
  pq_partials_ = Vector(blas.context(), partials, "bcg.pq_partials");
  rr_partials_ = Vector(blas.context(), partials, "bcg.rr_partials");
  rz_partials_ = Vector(blas.context(), partials, "bcg.rz_partials");
  active_ = context.allocate(sizeof(cl_int) * k, "bcg.active");
  set_active(std::vector<int>(static_cast<std::size_t>(k), 1));
  set_rho(std::vector<double>(static_cast<std::size_t>(k), 0.0));
  slot_bytes_ = 8 * static_cast<std::size_t>(kScalarsPerColumn) * k;
  staging_ = context.allocate(kReadSlots * slot_bytes_, "bcg.scalar staging (pinned)",
                              CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
  staging_host_ = static_cast<unsigned char*>(
      context.queue().enqueueMapBuffer(staging_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, kReadSlots * slot_bytes_));
}

BatchedCgSteps::~BatchedCgSteps() {
  // Destructors never throw: a failed unmap only leaks the staging mapping until the context goes.
  try {
    if (staging_host_) blas_.context()->queue().enqueueUnmapMemObject(staging_, staging_host_);
  } catch (const cl::Error&) {
  }
}

cl::Event BatchedCgSteps::launch(cl::Kernel& kernel) {
  cl::Event event;
  blas_.context()->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups_ * local_),
                                                cl::NDRange(local_), nullptr, &event);
  return event;
}

void BatchedCgSteps::spmm(Vector& X, Vector& Y) {
  const Matrix::Values values = A_.csr_values(precision_);
  KernelArgs(spmm_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(A_.csr_part().row_offsets)
      .value(A_.csr_part().col_indices)
      .vector(values)
      .vector(X.device(precision_, Access::Read))
      .vector(Y.device(precision_, Access::Write));
  const cl::Event event = launch(spmm_);
  // The matrix once (spmv_cost of one SpMV), then X gathered and Y written k - 1 more times.
  const OpCost cost = spmv_cost(A_, precision_, 0.0);
  const double e = static_cast<double>(bytes_per_element(precision_));
  blas_.record("spmm", cost.flops * k_, cost.bytes + (k_ - 1) * 2.0 * n_ * e, {event});
}

void BatchedCgSteps::spmm_dot(Vector& P, Vector& Q) {
  const Matrix::Values values = A_.csr_values(precision_);
  const double e = static_cast<double>(bytes_per_element(precision_));
  KernelArgs(spmm_dot_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(A_.csr_part().row_offsets)
      .value(A_.csr_part().col_indices)
      .vector(values)
      .vector(P.device(precision_, Access::Read))
      .vector(Q.device(precision_, Access::Write))
      .vector(pq_partials_.device(precision_, Access::Write))
      .local(local_ * e);
  const cl::Event event = launch(spmm_dot_);
  const OpCost cost = spmv_cost(A_, precision_, 0.0);
  blas_.record("bcg_spmm_dot", (cost.flops + 2.0 * n_) * k_, cost.bytes + (k_ - 1) * 2.0 * n_ * e, {event});
}

void BatchedCgSteps::update_xr(Vector& X, Vector& R, Vector& P, Vector& Q, Vector* Z) {
  if ((Z != nullptr) != preconditioned())
    throw Error("batched CG: update_xr takes Z exactly when the steps were built with the Jacobi diagonal");
  const double e = static_cast<double>(bytes_per_element(precision_));
  KernelArgs args(update_xr_, precision_);
  args.value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(groups_))
      .value(static_cast<cl_int>(rho_slot_))
      .value(active_)
      .vector(pq_partials_.device(precision_, Access::Read))
      .vector(scalars_.device(precision_, Access::ReadWrite))
      .vector(P.device(precision_, Access::Read))
      .vector(Q.device(precision_, Access::Read))
      .vector(X.device(precision_, Access::ReadWrite))
      .vector(R.device(precision_, Access::ReadWrite))
      .vector(rr_partials_.device(precision_, Access::Write));
  if (Z) {
    args.vector(inv_diag_->device(precision_, Access::Read))
        .vector(Z->device(precision_, Access::Write))
        .vector(rz_partials_.device(precision_, Access::Write));
  }
  args.local(local_ * e);
  const cl::Event event = launch(update_xr_);
  // Per column: x, p, r, q read and x, r written (6n); Jacobi: z written (n) and 1 / a_ii read once
  // for all columns (n).
  const double kn = static_cast<double>(k_) * n_;
  blas_.record(Z ? "bcg_update_xr_jacobi" : "bcg_update_xr", Z ? 9.0 * kn : 6.0 * kn,
               Z ? (7.0 * kn + n_) * e : 6.0 * kn * e, {event});
}

void BatchedCgSteps::update_p(Vector& Z, Vector& P) {
  const double e = static_cast<double>(bytes_per_element(precision_));
  Vector& rho_partials = preconditioned() ? rz_partials_ : rr_partials_;
  KernelArgs(update_p_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(groups_))
      .value(static_cast<cl_int>(rho_slot_))
      .value(active_)
      .vector(rho_partials.device(precision_, Access::Read))
      .vector(rr_partials_.device(precision_, Access::Read))
      .vector(scalars_.device(precision_, Access::ReadWrite))
      .vector(Z.device(precision_, Access::Read))
      .vector(P.device(precision_, Access::ReadWrite))
      .local(local_ * e);
  const cl::Event event = launch(update_p_);
  // Per column: z (or r) and p read, p written.
  const double kn = static_cast<double>(k_) * n_;
  blas_.record("bcg_update_p", 2.0 * kn, 3.0 * kn * e, {event});
  rho_slot_ = 1 - rho_slot_;
}

void BatchedCgSteps::set_active(const std::vector<int>& active) {
  if (active.size() != static_cast<std::size_t>(k_)) throw Error("batched CG: one active flag per column");
  std::vector<cl_int> flags(active.begin(), active.end());
  // Blocking: `flags` is a local; the write is tiny and happens only when a column changes state.
  blas_.context()->queue().enqueueWriteBuffer(active_, CL_TRUE, 0, sizeof(cl_int) * flags.size(), flags.data());
}

void BatchedCgSteps::set_rho(int j, const DeviceScalar& rho) {
  store_scalar(*blas_.context(), rho, scalars_, static_cast<std::size_t>(kScalarsPerColumn * j + rho_slot_));
}

void BatchedCgSteps::set_rho(const std::vector<double>& rho) {
  if (rho.size() != static_cast<std::size_t>(k_)) throw Error("batched CG: one rho per column");
  std::vector<double> block(static_cast<std::size_t>(kScalarsPerColumn) * k_, 0.0);
  rho_slot_ = 0;
  for (int j = 0; j < k_; ++j) block[static_cast<std::size_t>(kScalarsPerColumn * j)] = rho[j];
  scalars_.assign(block);
}

void BatchedCgSteps::get_column(Vector& block, int j, Vector& v) {
  KernelArgs(get_column_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(j))
      .vector(block.device(precision_, Access::Read))
      .vector(v.device(precision_, Access::Write));
  const cl::Event event = launch(get_column_);
  blas_.record("bcg_get_column", 0.0, 2.0 * n_ * bytes_per_element(precision_), {event});
}

void BatchedCgSteps::set_column(Vector& v, int j, Vector& block) {
  KernelArgs(set_column_, precision_)
      .value(static_cast<cl_int>(n_))
      .value(static_cast<cl_int>(chunk_))
      .value(static_cast<cl_int>(j))
      .vector(v.device(precision_, Access::Read))
      .vector(block.device(precision_, Access::ReadWrite));
  const cl::Event event = launch(set_column_);
  blas_.record("bcg_set_column", 0.0, 2.0 * n_ * bytes_per_element(precision_), {event});
}

void BatchedCgSteps::read_scalars(int slot) {
  read_rho_slot_[slot] = rho_slot_;
  auto s = scalars_.device(precision_, Access::Read);
  auto& queue = blas_.context()->queue();
  unsigned char* into = staging_host_ + slot * slot_bytes_;
  const std::size_t count = static_cast<std::size_t>(kScalarsPerColumn) * k_;
  if (precision_ == Precision::QuasiDouble) {
    // Heads and tails live in separate buffers: the heads land first, then the tails.
    queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, 4 * count, into);
    queue.enqueueReadBuffer(s.tail, CL_FALSE, 0, 4 * count, into + 4 * count, nullptr, &read_events_[slot]);
  } else {
    queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, count * bytes_per_element(precision_), into, nullptr,
                            &read_events_[slot]);
  }
}

std::vector<FusedCgSteps::Scalars> BatchedCgSteps::wait_scalars(int slot) {
  read_events_[slot].wait();
  const unsigned char* from = staging_host_ + slot * slot_bytes_;
  const int count = kScalarsPerColumn * k_;
  std::vector<FusedCgSteps::Scalars> out(static_cast<std::size_t>(k_));
  for (int j = 0; j < k_; ++j) {
    const int base = kScalarsPerColumn * j;
    out[j].rho = staged_real(from, precision_, count, base + read_rho_slot_[slot]);
    out[j].pq = staged_real(from, precision_, count, base + 2);
    out[j].rr = staged_real(from, precision_, count, base + 3);  // bcg_update_p writes r'r there for every column
  }
  return out;
}

}  // namespace clkr::detail
