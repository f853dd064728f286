// The launch shape of the device AMG setup: DeviceParams::amg_setup clamped to the device's work-group
// and local-memory limits, turned into build options and NDRanges; the launches timed when asked.
#include "device_setup_kernels.hpp"

#include <algorithm>

#include "clkr/data/precision.hpp"

namespace clkr::detail::amg {
namespace {

std::size_t largest_power_of_two_at_most(std::size_t n) {
  std::size_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

SetupKernels::SetupKernels(std::shared_ptr<Context> context, AmgSetupParams params, GalerkinParams galerkin,
                           Blas* timings)
    : context_(std::move(context)), params_(params), galerkin_(galerkin), timings_(timings) {
  const DeviceInfo& info = context_->info();
  // The group-wide scans and sorts assume a power-of-two group.
  params_.work_group_size = largest_power_of_two_at_most(
      std::max<std::size_t>(1, std::min(params_.work_group_size, info.max_work_group_size)));
  // Local tables of 4-byte slots in at most half the local memory (the rest for the scan's scratch
  // and what the driver keeps), not below the 64 slots the smallest hash table takes.
  const std::size_t slots = std::max<std::size_t>(64, largest_power_of_two_at_most(info.local_memory / 8));
  params_.hash_capacity = std::min(params_.hash_capacity, slots);
  params_.sort_capacity = std::min(params_.sort_capacity, slots);
  options_ = precision_build_option(Precision::Double) + " -DWG=" + std::to_string(params_.work_group_size) +
             " -DSMALL_ROW=" + std::to_string(params_.short_row) +
             " -DHASH_CAPACITY=" + std::to_string(params_.hash_capacity) +
             " -DSORT_CAPACITY=" + std::to_string(params_.sort_capacity);
  groups_ = std::max<std::size_t>(1, info.compute_units * params_.groups_per_compute_unit);
}

cl::Kernel SetupKernels::kernel(const std::string& file, const std::string& name) const {
  cl::Kernel& kernel = kernels_[file + ":" + name];
  if (!kernel()) {
    kernel = context_->kernel("precond/" + file, name, options_);
    names_[kernel()] = name;
  }
  return kernel;
}

void SetupKernels::per_item(cl::Kernel& kernel, std::size_t n) const {
  if (n == 0) return;
  const std::size_t local = params_.work_group_size;
  launch(kernel, (n + local - 1) / local * local, local);
}

void SetupKernels::per_group(cl::Kernel& kernel, std::size_t rows) const {
  if (rows == 0) return;
  const std::size_t local = params_.work_group_size;
  launch(kernel, std::min(groups_, rows) * local, local);
}

void SetupKernels::launch(cl::Kernel& kernel, std::size_t global, std::size_t local) const {
  if (!timings_) {
    context_->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
    return;
  }
  cl::Event event;
  context_->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local), nullptr,
                                         &event);
  const auto name = names_.find(kernel());
  record(name != names_.end() ? name->second : "amg setup kernel", event);
}

void SetupKernels::record(const std::string& name, const cl::Event& event) const {
  if (timings_ && event() != nullptr) timings_->record(name, 0, 0, {event});
}

}  // namespace clkr::detail::amg
