// The device scatter of Matrix::update_values (see value_scatter.hpp).
#include "value_scatter.hpp"

#include <algorithm>
#include <limits>

#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "convert.hpp"

namespace clkr::detail {

DeviceSlots upload_slots(Context& context, const std::vector<std::int64_t>& slots, bool force_wide, std::size_t chunk) {
  DeviceSlots d;
  d.count = slots.size();
  // A CSR-like slot -s - 1 is narrow while s fits: the most negative narrow slot is -(2^31 - 1) - 1.
  constexpr std::int64_t kNarrow = std::numeric_limits<std::int32_t>::max();
  d.wide = force_wide ||
           std::any_of(slots.begin(), slots.end(), [](std::int64_t s) { return s >= kNarrow || s < -kNarrow; });
  if (slots.empty()) return d;
  if (d.wide) {
    d.slots = context.allocate(slots.size() * sizeof(std::int64_t), "matrix update slots");
    write_buffer(context, d.slots, slots.data(), slots.size());
  } else {
    const std::vector<std::int32_t> narrow(slots.begin(), slots.end());
    d.slots = context.allocate(narrow.size() * sizeof(std::int32_t), "matrix update slots");
    write_buffer(context, d.slots, narrow.data(), narrow.size());
  }
  d.chunk = std::max<std::size_t>(1, std::min(chunk, slots.size()));
  if (context.info().fp64) {
    d.staging = context.allocate(d.chunk * sizeof(double), "matrix update staging (double)");
  } else {
    d.staging = context.allocate(d.chunk * sizeof(float), "matrix update staging (quasi-double head)");
    d.staging_tail = context.allocate(d.chunk * sizeof(float), "matrix update staging (quasi-double tail)");
  }
  return d;
}

void scatter_values(Context& context, DeviceSlots& slots, const std::vector<double>& values,
                    const ValueBuffers& column_major, const ValueBuffers& csr_like) {
  if (values.size() != slots.count)
    throw Error("matrix update: " + std::to_string(values.size()) + " values for " + std::to_string(slots.count) +
                " slots");
  if (slots.count == 0) return;
  const bool fp64 = context.info().fp64;
  const Precision p = fp64 ? Precision::Double : Precision::QuasiDouble;
  cl::Kernel kernel = context.kernel("data/scatter_values.cl", "scatter_values",
                                     precision_build_option(p) + (slots.wide ? " -DWIDE_OFFSETS" : ""));
  const std::size_t local = std::max<std::size_t>(1, std::min<std::size_t>(256, context.info().max_work_group_size));
  std::vector<float> head, tail;
  for (std::size_t first = 0; first < slots.count; first += slots.chunk) {
    const std::size_t count = std::min(slots.chunk, slots.count - first);
    // Blocking writes: the in-order queue has scattered the previous chunk before this one overwrites
    // the staging buffer, and the caller's values may change once update_values returns.
    if (fp64) {
      write_buffer(context, slots.staging, values.data() + first, count);
    } else {
      head.resize(count);
      tail.resize(count);
      host_split(values.data() + first, head.data(), tail.data(), count);
      write_buffer(context, slots.staging, head.data(), count);
      write_buffer(context, slots.staging_tail, tail.data(), count);
    }
    KernelArgs args(kernel, p);
    auto pass = [&](const ValueBuffers& b) {
      args.value(b.primary);
      if (!fp64) args.value(b.tail);
    };
    pass({slots.staging, slots.staging_tail});
    args.value(slots.slots);
    pass(column_major);
    pass(csr_like);
    args.value(static_cast<cl_ulong>(first)).value(static_cast<cl_ulong>(count));
    const std::size_t global = (count + local - 1) / local * local;
    context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
  }
}

}  // namespace clkr::detail
