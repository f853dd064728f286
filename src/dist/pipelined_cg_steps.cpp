// PipelinedCgSteps: launches of kernels/dist/pipelined_cg.cl, their work counted into the Blas counters.
#include "pipelined_cg_steps.hpp"

#include "../solver/cg_fused.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {

PipelinedCgSteps::PipelinedCgSteps(Blas& blas, std::size_t n, bool preconditioned)
    : blas_(blas),
      precision_(blas.precision()),
      n_(n),
      preconditioned_(preconditioned),
      count_(preconditioned ? 3 : 2),
      partials_(blas.context(), 1, "pipelined cg partial sums"),
      sums_(blas.context(), static_cast<std::size_t>(count_), "pipelined cg sums") {
  translate_cl_errors("pipelined CG", [&] {
    // The fused CG's launch shape (grid-stride groups on GPUs, contiguous chunks on CPUs).
    const FusedLaunchShape shape = fused_launch_shape(blas, n_);
    local_ = shape.local;
    groups_ = shape.groups;
    chunk_ = shape.chunk;
    std::string options = precision_build_option(precision_) + " -DWG=" + std::to_string(local_);
    if (shape.chunked) options += " -DCG_CHUNKED";
    Context& context = *blas.context();
    update_ = context.kernel("dist/pipelined_cg.cl",
                             preconditioned ? "pipelined_cg_update_preconditioned" : "pipelined_cg_update", options);
    sums_kernel_ = context.kernel("dist/pipelined_cg.cl", "pipelined_cg_sums", options);
    partials_ = Vector(blas.context(), groups_ * static_cast<std::size_t>(count_), "pipelined cg partial sums");
    const std::size_t bytes = static_cast<std::size_t>(count_) * 8;
    staging_ = context.allocate(bytes, "pipelined cg sums staging (pinned)", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    staging_host_ = static_cast<unsigned char*>(
        context.queue().enqueueMapBuffer(staging_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes));
  });
}

PipelinedCgSteps::~PipelinedCgSteps() {
  // Destructors never throw: a failed unmap only leaks the mapping until the context goes.
  try {
    if (read_done_()) read_done_.wait();
    if (staging_host_) blas_.context()->queue().enqueueUnmapMemObject(staging_, staging_host_);
  } catch (const cl::Error&) {
  }
}

void PipelinedCgSteps::update(double alpha, double beta, const Vectors& v) {
  if (n_ == 0) return;  // no rows: the sums are zeros, nothing to queue
  translate_cl_errors("pipelined CG update", [&] {
    const Precision p = precision_;
    const double e = static_cast<double>(bytes_per_element(p));
    auto& queue = blas_.context()->queue();
    const cl::NDRange local(local_);
    KernelArgs args(update_, p);
    args.value(static_cast<cl_int>(n_)).value(static_cast<cl_int>(chunk_)).real(beta).real(alpha).real(-alpha);
    args.vector(v.n->device(p, Access::Read));
    if (preconditioned_) args.vector(v.m->device(p, Access::Read));
    args.vector(v.z->device(p, Access::ReadWrite));
    if (preconditioned_) args.vector(v.q->device(p, Access::ReadWrite));
    args.vector(v.s->device(p, Access::ReadWrite))
        .vector(v.p->device(p, Access::ReadWrite))
        .vector(v.x->device(p, Access::ReadWrite))
        .vector(v.r->device(p, Access::ReadWrite));
    if (preconditioned_) args.vector(v.u->device(p, Access::ReadWrite));
    args.vector(v.w->device(p, Access::ReadWrite)).vector(partials_.device(p, Access::Write)).local(local_ * e);
    cl::Event update_done;
    queue.enqueueNDRangeKernel(update_, cl::NullRange, cl::NDRange(groups_ * local_), local, nullptr, &update_done);
    // Without M: reads n, z, s, p, x, r, w and writes all but n (13 elements), 6 updates and 2 sums (16
    // flops); with M: reads n, m, z, q, s, p, x, r, u, w and writes all but n and m (18), 8 + 3 (22).
    const double elements = preconditioned_ ? 18 : 13, flops = preconditioned_ ? 22 : 16;
    blas_.record("pipelined_cg_update", flops * n_, elements * n_ * e, {update_done});

    KernelArgs(sums_kernel_, p)
        .value(static_cast<cl_int>(count_))
        .value(static_cast<cl_int>(groups_))
        .vector(partials_.device(p, Access::Read))
        .vector(sums_.device(p, Access::Write))
        .local(local_ * e);
    cl::Event summed;
    queue.enqueueNDRangeKernel(sums_kernel_, cl::NullRange, local, local, nullptr, &summed);
    blas_.record("pipelined_cg_sums", static_cast<double>(count_ * groups_), count_ * groups_ * e, {summed});

    const auto s = sums_.device(p, Access::Read);
    const std::size_t count = static_cast<std::size_t>(count_);
    if (p == Precision::QuasiDouble) {  // the heads, then the tails (staged_real's layout)
      queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, 4 * count, staging_host_);
      queue.enqueueReadBuffer(s.tail, CL_FALSE, 0, 4 * count, staging_host_ + 4 * count, nullptr, &read_done_);
    } else {
      queue.enqueueReadBuffer(s.primary, CL_FALSE, 0, count * bytes_per_element(p), staging_host_, nullptr,
                              &read_done_);
    }
    queue.flush();
  });
}

std::vector<double> PipelinedCgSteps::sums() {
  return translate_cl_errors("pipelined CG sums", [&] {
    std::vector<double> values(static_cast<std::size_t>(count_), 0.0);
    if (n_ == 0) return values;
    read_done_.wait();
    for (int k = 0; k < count_; ++k)
      values[static_cast<std::size_t>(k)] = staged_real(staging_host_, precision_, count_, k);
    return values;
  });
}

}  // namespace clkr::detail
