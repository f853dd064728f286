// The facts about an OpenCL device that kernels and launch-size choices depend on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "clkr/runtime/opencl.hpp"

namespace clkr {

enum class DeviceType { Gpu, Cpu, Accelerator, Other };

struct DeviceInfo {
  std::size_t platform_index = 0;  // position in the platform list
  std::size_t device_index = 0;    // position in that platform's device list
  std::string platform_name;
  std::string platform_vendor;  // "The pocl project", "NVIDIA Corporation", ...
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string device_version;    // "OpenCL 3.0 CUDA", ...
  std::string opencl_c_version;  // "OpenCL C 1.2 ..."
  DeviceType type = DeviceType::Other;
  unsigned compute_units = 0;
  bool fp64 = false;
  std::uint64_t global_memory = 0;
  std::uint64_t max_allocation = 0;
  std::uint64_t local_memory = 0;
  std::size_t max_work_group_size = 0;
  std::size_t preferred_work_group_multiple = 0;  // warp/wavefront width on GPUs, from a probe kernel

  // "1:0" style selector for this device.
  std::string index_selector() const;
  // One line: "NVIDIA H200 (GPU, NVIDIA Corporation, 132 CUs, fp64)".
  std::string summary() const;
};

std::string to_string(DeviceType t);  // "GPU", "CPU", ...

}  // namespace clkr
