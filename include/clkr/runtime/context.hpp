// clkr::Context: one OpenCL device with its context, an in-order queue (profiling by default) and the
// cache of built kernel programs. Every Vector, Matrix and Blas object holds a shared_ptr to the Context it
// lives on; several contexts (devices) can coexist in one process.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clkr/runtime/command_counts.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/runtime/opencl.hpp"
#include "clkr/runtime/program_cache.hpp"

namespace clkr {

namespace detail {
struct DeviceMemoryTracker;
}

// The device memory a Context's buffers hold (every buffer clkr allocates goes through
// Context::allocate). A buffer counts until the driver frees it, which can be after its last cl::Buffer
// handle is gone if queued commands still use it: read this after Context::finish().
struct DeviceMemoryUse {
  std::uint64_t live_bytes = 0;    // bytes of the buffers allocated and not freed yet
  std::uint64_t live_buffers = 0;  // how many such buffers
  std::uint64_t peak_bytes = 0;    // the most live_bytes has been since the Context was created
  std::uint64_t untracked = 0;     // buffers whose release the driver could not report (then not counted)
};

// How a Context sets up its queue.
struct ContextOptions {
  // Time every command on the device (CL_QUEUE_PROFILING_ENABLE): the Blas counters' seconds, the
  // kernel tables of reports and the tuner need it. It costs: an AMG-PCG solve on an H200 ran 3-19%
  // faster without it, CG on poisson3d:128 11% (docs/performance-amg-setup.md). Without it the counters keep
  // calls, flops and bytes, and their seconds stay 0.
  bool profiling = true;
};

// Thread safety (docs/design.md#thread-safety): a Context may be shared by threads, each using its own
// Vector, Matrix, Blas, Preconditioner and solver objects; those objects themselves are used by one
// thread at a time.
class Context {
 public:
  // Selects a device: `selector` if not empty, else the environment variable CLKR_DEVICE, else the
  // first GPU, else the first CPU. A selector is "P:D" (platform and device index) or a
  // case-insensitive substring of the platform name or vendor, device name or vendor, or "gpu"/"cpu" for the first
  // device of that type. Throws clkr::Error listing every device when nothing matches.
  static std::shared_ptr<Context> create(const std::string& selector = "", const ContextOptions& options = {});

  // Every device on every platform (empty when no platform is installed).
  static std::vector<DeviceInfo> list_devices();
  // Index into list_devices() of the device create("") would choose (honours CLKR_DEVICE).
  static std::size_t default_device_index();

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const DeviceInfo& info() const { return info_; }
  // Whether the queue times its commands (ContextOptions::profiling).
  bool profiling() const { return profiling_; }
  const cl::Device& device() const { return device_; }
  const cl::Context& cl_context() const { return context_; }
  // The queue every command goes through (which is where fail_commands_after strikes, and where
  // command_counts() counts).
  CountedQueue& queue() {
    if (commands_until_fault_.load(std::memory_order_relaxed) != 0) count_down_to_fault();
    return queue_;
  }

  // A kernel from the embedded file `file` ("blas1/axpy.cl") built with `options` (for example
  // precision_build_option(p) plus tuning -D's). Programs are built once per (file, options) and
  // cached in memory and on disk.
  cl::Kernel kernel(const std::string& file, const std::string& kernel_name, const std::string& options = "");
  cl::Program program(const std::string& file, const std::string& options = "");

  // Allocates a device buffer of `bytes`, refusing clearly (naming `what` and the size) what exceeds
  // the device's maximum allocation or global memory. A zero-byte request allocates a minimal buffer.
  cl::Buffer allocate(std::size_t bytes, const std::string& what, cl_mem_flags flags = CL_MEM_READ_WRITE);
  // The bytes allocate() takes for a request of `bytes` (what device_memory() counts).
  static std::size_t buffer_bytes(std::size_t bytes) { return bytes < 16 ? 16 : bytes; }

  // Blocks until every command queued so far has finished (a shared context: every thread's commands).
  void finish();

  // Every command this Context's queue took since it was made, and its allocations: the difference
  // of two readings is what the work in between asked of the device (a shared context: every thread's).
  CommandCounts command_counts() const { return commands_.snapshot(); }

  ProgramCache& program_cache() { return *programs_; }
  // Safe to call from any thread at any time.
  DeviceMemoryUse device_memory() const;
  // Starts peak_bytes over from the bytes live now (to measure the peak of one step).
  void reset_device_memory_peak();

  // Whether the work-groups of a launch shape that needs them all running at once (the persistent CG
  // kernel's, named by `shape`: kernel, build options, sizes) did so when probed on this Context: unknown
  // (no value) until remember_co_residency. Kept for the Context's life, so each shape is probed once.
  // Safe to call from any thread.
  std::optional<bool> co_resident(const std::string& shape) const;
  void remember_co_residency(const std::string& shape, bool resident);

  // ---- Faults on purpose, for tests of what a failing device does to a solve ----------------------------
  // Caps the device memory this Context's buffers may hold together at `bytes` (0 lifts the cap): an
  // allocation past it fails as the driver's own would, with CL_MEM_OBJECT_ALLOCATION_FAILURE and the
  // buffer named. The environment variable CLKR_DEVICE_MEMORY_LIMIT (bytes, or with K, M, G, T) sets
  // it for every Context a process makes, so programs can be run out of device memory too.
  void limit_device_memory(std::uint64_t bytes);
  // The cap limit_device_memory (or CLKR_DEVICE_MEMORY_LIMIT) set; 0: none.
  std::uint64_t device_memory_limit() const { return memory_cap_.load(); }
  // The `commands`-th use of queue() from now (every enqueue of a kernel, read, write, map goes through
  // it) throws cl::Error CL_OUT_OF_RESOURCES, as a failed kernel launch on a GPU does; later commands
  // work again. 0 disarms.
  void fail_commands_after(std::uint64_t commands);
  // What is left of fail_commands_after's count (0: disarmed): armed with a large count before some
  // work, the difference after it is how many commands the work issued.
  std::uint64_t commands_until_fault() const { return commands_until_fault_.load(); }

 private:
  Context(const cl::Platform& platform, const cl::Device& device, DeviceInfo info, const ContextOptions& options);
  void count_down_to_fault();

  DeviceInfo info_;
  bool profiling_ = true;
  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
  detail::CommandCounters commands_;
  CountedQueue queue_;
  std::unique_ptr<ProgramCache> programs_;
  // Shared with the release callback of every buffer, which the driver may run after this Context is gone.
  std::shared_ptr<detail::DeviceMemoryTracker> memory_;
  std::atomic<std::uint64_t> memory_cap_{0};            // limit_device_memory; 0: none
  std::atomic<std::uint64_t> commands_until_fault_{0};  // fail_commands_after; 0: disarmed
  mutable std::mutex co_resident_mutex_;
  std::map<std::string, bool> co_resident_;  // remember_co_residency
};

}  // namespace clkr
