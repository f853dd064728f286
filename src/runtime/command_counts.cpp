// CommandCounts arithmetic and the counted enqueue calls of CountedQueue.
#include "clkr/runtime/command_counts.hpp"

#include <chrono>

namespace clkr {
namespace {

// Every field of CommandCounts, for the arithmetic below.
template <class Counts, class F>
void each_field(Counts& a, const CommandCounts& b, F f) {
  f(a.launches, b.launches);
  f(a.waits, b.waits);
  f(a.reads, b.reads);
  f(a.read_bytes, b.read_bytes);
  f(a.writes, b.writes);
  f(a.write_bytes, b.write_bytes);
  f(a.fills, b.fills);
  f(a.copies, b.copies);
  f(a.allocations, b.allocations);
  f(a.allocated_bytes, b.allocated_bytes);
  f(a.wait_nanoseconds, b.wait_nanoseconds);
  f(a.allocation_nanoseconds, b.allocation_nanoseconds);
}

void add(std::atomic<std::uint64_t>& counter, std::uint64_t n = 1) { counter.fetch_add(n, std::memory_order_relaxed); }

// Runs `call`, and when it blocks (a wait for the device), counts the wait and the time it took.
template <class Call>
auto waited(detail::CommandCounters& c, bool blocking, Call call) {
  if (!blocking) return call();
  const auto start = std::chrono::steady_clock::now();
  auto result = call();
  add(c.waits);
  add(c.wait_nanoseconds,
      static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count()));
  return result;
}

}  // namespace

CommandCounts& CommandCounts::operator+=(const CommandCounts& o) {
  each_field(*this, o, [](std::uint64_t& a, std::uint64_t b) { a += b; });
  return *this;
}

CommandCounts& CommandCounts::operator-=(const CommandCounts& o) {
  each_field(*this, o, [](std::uint64_t& a, std::uint64_t b) { a -= b; });
  return *this;
}

namespace detail {
CommandCounts CommandCounters::snapshot() const {
  CommandCounts c;
  c.launches = launches.load(std::memory_order_relaxed);
  c.waits = waits.load(std::memory_order_relaxed);
  c.reads = reads.load(std::memory_order_relaxed);
  c.read_bytes = read_bytes.load(std::memory_order_relaxed);
  c.writes = writes.load(std::memory_order_relaxed);
  c.write_bytes = write_bytes.load(std::memory_order_relaxed);
  c.fills = fills.load(std::memory_order_relaxed);
  c.copies = copies.load(std::memory_order_relaxed);
  c.allocations = allocations.load(std::memory_order_relaxed);
  c.allocated_bytes = allocated_bytes.load(std::memory_order_relaxed);
  c.wait_nanoseconds = wait_nanoseconds.load(std::memory_order_relaxed);
  c.allocation_nanoseconds = allocation_nanoseconds.load(std::memory_order_relaxed);
  return c;
}
}  // namespace detail

cl_int CountedQueue::enqueueNDRangeKernel(const cl::Kernel& kernel, const cl::NDRange& offset,
                                          const cl::NDRange& global, const cl::NDRange& local,
                                          const std::vector<cl::Event>* events, cl::Event* event) const {
  add(counters_->launches);
  return cl::CommandQueue::enqueueNDRangeKernel(kernel, offset, global, local, events, event);
}

cl_int CountedQueue::enqueueReadBuffer(const cl::Buffer& buffer, cl_bool blocking, cl::size_type offset,
                                       cl::size_type size, void* ptr, const std::vector<cl::Event>* events,
                                       cl::Event* event) const {
  add(counters_->reads);
  add(counters_->read_bytes, size);
  return waited(*counters_, blocking, [&] {
    return cl::CommandQueue::enqueueReadBuffer(buffer, blocking, offset, size, ptr, events, event);
  });
}

cl_int CountedQueue::enqueueWriteBuffer(const cl::Buffer& buffer, cl_bool blocking, cl::size_type offset,
                                        cl::size_type size, const void* ptr, const std::vector<cl::Event>* events,
                                        cl::Event* event) const {
  add(counters_->writes);
  add(counters_->write_bytes, size);
  return waited(*counters_, blocking, [&] {
    return cl::CommandQueue::enqueueWriteBuffer(buffer, blocking, offset, size, ptr, events, event);
  });
}

cl_int CountedQueue::enqueueCopyBuffer(const cl::Buffer& source, const cl::Buffer& destination,
                                       cl::size_type source_offset, cl::size_type destination_offset,
                                       cl::size_type size, const std::vector<cl::Event>* events,
                                       cl::Event* event) const {
  add(counters_->copies);
  return cl::CommandQueue::enqueueCopyBuffer(source, destination, source_offset, destination_offset, size, events,
                                             event);
}

void* CountedQueue::enqueueMapBuffer(const cl::Buffer& buffer, cl_bool blocking, cl_map_flags flags,
                                     cl::size_type offset, cl::size_type size, const std::vector<cl::Event>* events,
                                     cl::Event* event, cl_int* err) const {
  return waited(*counters_, blocking, [&] {
    return cl::CommandQueue::enqueueMapBuffer(buffer, blocking, flags, offset, size, events, event, err);
  });
}

cl_int CountedQueue::finish() const {
  return waited(*counters_, true, [&] { return cl::CommandQueue::finish(); });
}

}  // namespace clkr
