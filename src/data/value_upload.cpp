// The values of Matrix::update_values to the device (see value_upload.hpp).
#include "value_upload.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "../runtime/per_item_launch.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "convert.hpp"

namespace clkr::detail {

ValueUpload::ValueUpload(std::shared_ptr<Context> context, std::size_t count, std::size_t chunk)
    : context_(std::move(context)), fp64_(context_->info().fp64), count_(count) {
  if (count_ > 0) make_stages(chunk, false);
}

ValueUpload::ValueUpload(std::shared_ptr<Context> context, const std::vector<std::int64_t>& slots, bool force_wide,
                         std::size_t chunk)
    : context_(std::move(context)), fp64_(context_->info().fp64), count_(slots.size()) {
  // A CSR-like slot -s - 1 is narrow while s fits: the most negative narrow slot is -(2^31 - 1) - 1.
  constexpr std::int64_t kNarrow = std::numeric_limits<std::int32_t>::max();
  wide_ = force_wide ||
          std::any_of(slots.begin(), slots.end(), [](std::int64_t s) { return s >= kNarrow || s < -kNarrow; });
  if (count_ == 0) return;
  Context& c = *context_;
  if (wide_) {
    slots_ = c.allocate(slots.size() * sizeof(std::int64_t), "matrix update slots");
    write_buffer(c, slots_, slots.data(), slots.size());
  } else {
    const std::vector<std::int32_t> narrow(slots.begin(), slots.end());
    slots_ = c.allocate(narrow.size() * sizeof(std::int32_t), "matrix update slots");
    write_buffer(c, slots_, narrow.data(), narrow.size());
  }
  make_stages(chunk, true);
}

void ValueUpload::make_stages(std::size_t chunk, bool on_device) {
  Context& c = *context_;
  chunk_ = std::max<std::size_t>(1, std::min(chunk, count_));
  // A chunk is `chunk_` doubles, or as many floats of each half.
  const std::size_t bytes = chunk_ * (fp64_ ? sizeof(double) : 2 * sizeof(float));
  for (Stage& s : stages_) {
    if (on_device && fp64_) {
      s.device = c.allocate(bytes, "matrix update staging (double)");
    } else if (on_device) {
      s.device = c.allocate(bytes / 2, "matrix update staging (quasi-double head)");
      s.device_tail = c.allocate(bytes / 2, "matrix update staging (quasi-double tail)");
    }
    s.host_buffer = c.allocate(bytes, "matrix update host staging (pinned)", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    s.host = c.queue().enqueueMapBuffer(s.host_buffer, CL_TRUE, CL_MAP_WRITE, 0, bytes);
  }
}

ValueUpload::~ValueUpload() {
  // Destructors never throw: a device that fails here leaves the memory to the buffers' release.
  try {
    for (Stage& s : stages_) {
      if (s.written()) s.written.wait();
      if (s.host) context_->queue().enqueueUnmapMemObject(s.host_buffer, s.host);
    }
  } catch (...) {
  }
}

void ValueUpload::upload(const std::vector<double>& values, const ValueBuffers& column_major,
                         const ValueBuffers& csr_like) {
  if (values.size() != count_)
    throw Error("matrix update: " + std::to_string(values.size()) + " values for " + std::to_string(count_) +
                " entries");
  if (count_ == 0) return;
  Context& c = *context_;
  const Precision p = fp64_ ? Precision::Double : Precision::QuasiDouble;
  const bool scatter = slots_() != nullptr;
  cl::Kernel kernel;
  if (scatter)
    kernel = c.kernel("data/scatter_values.cl", "scatter_values",
                      precision_build_option(p) + (wide_ ? " -DWIDE_OFFSETS" : ""));
  std::size_t index = 0;
  for (std::size_t first = 0; first < count_; first += chunk_, ++index) {
    const std::size_t count = std::min(chunk_, count_ - first);
    Stage& s = stages_[index % 2];
    // The stage's previous transfer (two chunks ago, or the last update's) must have read it.
    if (s.written()) s.written.wait();
    // Into the stage's device buffer for a scatter, else straight to entry `first` of CSR's values.
    const ValueBuffers to = scatter ? ValueBuffers{s.device, s.device_tail} : csr_like;
    const std::size_t at = scatter ? 0 : first;
    if (fp64_) {
      std::memcpy(s.host, values.data() + first, count * sizeof(double));
      c.queue().enqueueWriteBuffer(to.primary, CL_FALSE, at * sizeof(double), count * sizeof(double), s.host, nullptr,
                                   &s.written);
    } else {
      float* head = static_cast<float*>(s.host);
      float* tail = head + chunk_;
      host_split(values.data() + first, head, tail, count);
      c.queue().enqueueWriteBuffer(to.primary, CL_FALSE, at * sizeof(float), count * sizeof(float), head);
      // In order: this transfer's end is the end of both.
      c.queue().enqueueWriteBuffer(to.tail, CL_FALSE, at * sizeof(float), count * sizeof(float), tail, nullptr,
                                   &s.written);
    }
    if (!scatter) continue;
    // The in-order queue runs this scatter after the transfer, and the stage's next transfer (two
    // chunks on) after this scatter.
    KernelArgs args(kernel, p);
    auto pass = [&](const ValueBuffers& b) {
      args.value(b.primary);
      if (!fp64_) args.value(b.tail);
    };
    pass(to);
    args.value(slots_);
    pass(column_major);
    pass(csr_like);
    args.value(static_cast<cl_ulong>(first)).value(static_cast<cl_ulong>(count));
    enqueue_per_item(c, kernel, count);
  }
  c.queue().flush();  // start what is queued: the caller may next wait on something else
}

}  // namespace clkr::detail
