// DeviceInfo formatting helpers.
#include "clkr/runtime/device_info.hpp"

namespace clkr {

std::string to_string(DeviceType t) {
  switch (t) {
    case DeviceType::Gpu:
      return "GPU";
    case DeviceType::Cpu:
      return "CPU";
    case DeviceType::Accelerator:
      return "accelerator";
    case DeviceType::Other:
      break;
  }
  return "other";
}

std::string DeviceInfo::index_selector() const {
  return std::to_string(platform_index) + ":" + std::to_string(device_index);
}

std::string DeviceInfo::summary() const {
  return name + " (" + to_string(type) + ", " + vendor + ", " + std::to_string(compute_units) + " CUs, " +
         (fp64 ? "fp64" : "no fp64") + ")";
}

}  // namespace clkr
