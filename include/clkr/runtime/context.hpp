// clkr::Context: one OpenCL device with its context, an in-order profiling queue and the cache of
// built kernel programs. Every Vector, Matrix and Blas object holds a shared_ptr to the Context it
// lives on; several contexts (devices) can coexist in one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clkr/runtime/device_info.hpp"
#include "clkr/runtime/opencl.hpp"
#include "clkr/runtime/program_cache.hpp"

namespace clkr {

class Context {
 public:
  // Selects a device: `selector` if not empty, else the environment variable CLKR_DEVICE, else the
  // first GPU, else the first CPU. A selector is "P:D" (platform and device index) or a
  // case-insensitive substring of the platform name or vendor, device name or vendor, or "gpu"/"cpu" for the first
  // device of that type. Throws clkr::Error listing every device when nothing matches.
  static std::shared_ptr<Context> create(const std::string& selector = "");

  // Every device on every platform (empty when no platform is installed).
  static std::vector<DeviceInfo> list_devices();
  // Index into list_devices() of the device create("") would choose (honours CLKR_DEVICE).
  static std::size_t default_device_index();

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const DeviceInfo& info() const { return info_; }
  const cl::Device& device() const { return device_; }
  const cl::Context& cl_context() const { return context_; }
  cl::CommandQueue& queue() { return queue_; }

  // A kernel from the embedded file `file` ("blas1/axpy.cl") built with `options` (for example
  // precision_build_option(p) plus tuning -D's). Programs are built once per (file, options) and
  // cached in memory and on disk.
  cl::Kernel kernel(const std::string& file, const std::string& kernel_name, const std::string& options = "");
  cl::Program program(const std::string& file, const std::string& options = "");

  // Allocates a device buffer of `bytes`, refusing clearly (naming `what` and the size) what exceeds
  // the device's maximum allocation or global memory. A zero-byte request allocates a minimal buffer.
  cl::Buffer allocate(std::size_t bytes, const std::string& what, cl_mem_flags flags = CL_MEM_READ_WRITE);

  // Blocks until every command queued so far has finished.
  void finish();

  ProgramCache& program_cache() { return *programs_; }

 private:
  Context(const cl::Platform& platform, const cl::Device& device, DeviceInfo info);

  DeviceInfo info_;
  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  std::unique_ptr<ProgramCache> programs_;
};

}  // namespace clkr
