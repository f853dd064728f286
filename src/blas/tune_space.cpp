// A search's parameter space: candidates are added unless the device's limits rule them out (the
// most work-items a kernel allows, local memory), and why is kept for the report.
#include <algorithm>
#include <utility>

#include "device_tuner.hpp"

namespace clkr::detail::tune {

void add_candidate(SearchSpec& spec, std::string label, const DeviceParams& params, const std::string& limit) {
  if (!limit.empty()) {
    spec.skipped.push_back(label + ": " + limit);
    return;
  }
  for (const Candidate& c : spec.candidates)
    if (c.label == label) return;
  spec.candidates.push_back({std::move(label), params});
}

std::size_t kernel_limit(Context& context, const std::string& file, const std::string& name,
                         const std::string& options) {
  const cl::Kernel kernel = context.kernel(file, name, options);
  const std::size_t limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
  return std::min(limit, context.info().max_work_group_size);
}

std::string work_group_limit(const Context& context, std::size_t size, std::size_t limit, const std::string& kernel,
                             std::size_t local_bytes_per_item) {
  if (size > limit)
    return "work-group of " + std::to_string(size) + " > " + std::to_string(limit) + ", the most " + kernel +
           " allows on this device";
  const std::size_t bytes = size * local_bytes_per_item;
  if (bytes > context.info().local_memory)
    return kernel + " needs " + std::to_string(bytes) + " bytes of local memory, the device has " +
           std::to_string(context.info().local_memory);
  return {};
}

}  // namespace clkr::detail::tune
