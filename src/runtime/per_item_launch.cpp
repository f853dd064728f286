// One work-item per element, in whole work-groups (see per_item_launch.hpp).
#include "per_item_launch.hpp"

#include <algorithm>

#include "integer_math.hpp"

namespace clkr::detail {

void enqueue_per_item(Context& context, const cl::Kernel& kernel, std::size_t n, std::size_t local) {
  if (n == 0) return;
  // 256 keeps a group's items within one work-group size every OpenCL device allows for a kernel
  // without local memory, and is what these element-wise kernels were measured at.
  if (local == 0) local = std::max<std::size_t>(1, std::min<std::size_t>(256, context.info().max_work_group_size));
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(round_up(n, local)), cl::NDRange(local));
}

}  // namespace clkr::detail
