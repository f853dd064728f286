// What a Context's queue was asked to do, counted by kind: on a GPU a sequence of operations costs
// its launches (~5-10 us each), its waits for the device (~30 us each), its transfers over PCIe and its
// allocations besides its bytes, and these counts are how the AMG setup's phases report them.
#pragma once

#include <atomic>
#include <cstdint>

#include "clkr/runtime/opencl.hpp"

namespace clkr {

struct CommandCounts {
  std::uint64_t launches = 0;  // kernels enqueued
  // The host waited for the device: blocking reads, writes, maps, finish (not the waits on events, by
  // which the solvers collect their staged scalar reads and the Blas its timings).
  std::uint64_t waits = 0;
  std::uint64_t reads = 0, read_bytes = 0;             // device -> host transfers (blocking or not)
  std::uint64_t writes = 0, write_bytes = 0;           // host -> device transfers
  std::uint64_t fills = 0, copies = 0;                 // fills and buffer copies on the device
  std::uint64_t allocations = 0, allocated_bytes = 0;  // Context::allocate
  // Host time spent inside the waits and inside the allocations (the driver's calls, timed on the
  // host): what of a phase's time the device's latency and the allocator took, apart from the launches
  // and the host's own work.
  std::uint64_t wait_nanoseconds = 0, allocation_nanoseconds = 0;

  CommandCounts& operator+=(const CommandCounts& o);
  CommandCounts& operator-=(const CommandCounts& o);
  friend CommandCounts operator+(CommandCounts a, const CommandCounts& b) { return a += b; }
  friend CommandCounts operator-(CommandCounts a, const CommandCounts& b) { return a -= b; }
};

namespace detail {
// The running totals, atomics: threads sharing a Context enqueue concurrently.
struct CommandCounters {
  std::atomic<std::uint64_t> launches{0}, waits{0}, reads{0}, read_bytes{0}, writes{0}, write_bytes{0}, fills{0},
      copies{0}, allocations{0}, allocated_bytes{0}, wait_nanoseconds{0}, allocation_nanoseconds{0};
  CommandCounts snapshot() const;
};
}  // namespace detail

// The Context's command queue: cl::CommandQueue with the enqueue calls clkr uses counted into the
// Context's CommandCounters (they hide the base class's of the same name; the rest are inherited).
class CountedQueue : public cl::CommandQueue {
 public:
  CountedQueue() = default;
  CountedQueue(cl::CommandQueue queue, detail::CommandCounters* counters)
      : cl::CommandQueue(std::move(queue)), counters_(counters) {}

  cl_int enqueueNDRangeKernel(const cl::Kernel& kernel, const cl::NDRange& offset, const cl::NDRange& global,
                              const cl::NDRange& local = cl::NullRange, const std::vector<cl::Event>* events = nullptr,
                              cl::Event* event = nullptr) const;
  cl_int enqueueReadBuffer(const cl::Buffer& buffer, cl_bool blocking, cl::size_type offset, cl::size_type size,
                           void* ptr, const std::vector<cl::Event>* events = nullptr, cl::Event* event = nullptr) const;
  cl_int enqueueWriteBuffer(const cl::Buffer& buffer, cl_bool blocking, cl::size_type offset, cl::size_type size,
                            const void* ptr, const std::vector<cl::Event>* events = nullptr,
                            cl::Event* event = nullptr) const;
  template <class Pattern>
  cl_int enqueueFillBuffer(const cl::Buffer& buffer, Pattern pattern, cl::size_type offset, cl::size_type size,
                           const std::vector<cl::Event>* events = nullptr, cl::Event* event = nullptr) const {
    counters_->fills.fetch_add(1, std::memory_order_relaxed);
    return cl::CommandQueue::enqueueFillBuffer(buffer, pattern, offset, size, events, event);
  }
  cl_int enqueueCopyBuffer(const cl::Buffer& source, const cl::Buffer& destination, cl::size_type source_offset,
                           cl::size_type destination_offset, cl::size_type size,
                           const std::vector<cl::Event>* events = nullptr, cl::Event* event = nullptr) const;
  void* enqueueMapBuffer(const cl::Buffer& buffer, cl_bool blocking, cl_map_flags flags, cl::size_type offset,
                         cl::size_type size, const std::vector<cl::Event>* events = nullptr, cl::Event* event = nullptr,
                         cl_int* err = nullptr) const;
  cl_int finish() const;

 private:
  detail::CommandCounters* counters_ = nullptr;
};

}  // namespace clkr
