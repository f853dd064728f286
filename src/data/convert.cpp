// Precision conversions of arrays on the device and on the host (see convert.hpp).
#include "convert.hpp"

#include <algorithm>
#include <string>

#include "../runtime/per_item_launch.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

// One work-item per element; the global size is rounded up to whole work-groups (kernels check n).
void launch(Context& context, const char* name, std::size_t n, const cl::Buffer& a, const cl::Buffer& b,
            const cl::Buffer* c) {
  if (n == 0) return;
  if (!context.info().fp64)
    throw Error(std::string("data/convert.cl:") + name + " needs fp64, which device " + context.info().name +
                " does not have");
  cl::Kernel kernel = context.kernel("data/convert.cl", name, precision_build_option(Precision::Double));
  cl_uint arg = 0;
  kernel.setArg(arg++, a);
  kernel.setArg(arg++, b);
  if (c) kernel.setArg(arg++, *c);
  kernel.setArg(arg++, static_cast<cl_ulong>(n));
  enqueue_per_item(context, kernel, n);
}

}  // namespace

void device_split(Context& context, const cl::Buffer& d, const cl::Buffer& head, const cl::Buffer& tail,
                  std::size_t n) {
  launch(context, "split_double", n, d, head, &tail);
}

void device_gather(Context& context, const cl::Buffer& values, const cl::Buffer& index, const cl::Buffer& out,
                   std::size_t n) {
  launch(context, "gather_double", n, values, index, &out);
}

void device_narrow(Context& context, const cl::Buffer& d, const cl::Buffer& head, std::size_t n) {
  launch(context, "narrow_double", n, d, head, nullptr);
}

void device_merge(Context& context, const cl::Buffer& head, const cl::Buffer& tail, const cl::Buffer& d,
                  std::size_t n) {
  launch(context, "merge_quasi_double", n, head, tail, &d);
}

void device_widen(Context& context, const cl::Buffer& head, const cl::Buffer& d, std::size_t n) {
  launch(context, "widen_single", n, head, d, nullptr);
}

void host_split(const double* d, float* head, float* tail, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float h = static_cast<float>(d[i]);
    head[i] = h;
    tail[i] = static_cast<float>(d[i] - static_cast<double>(h));
  }
}

void host_narrow(const double* d, float* head, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) head[i] = static_cast<float>(d[i]);
}

void host_merge(const float* head, const float* tail, double* d, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<double>(head[i]) + static_cast<double>(tail[i]);
}

void host_widen(const float* head, double* d, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<double>(head[i]);
}

}  // namespace clkr::detail
