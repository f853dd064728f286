// The per-operation counters a Blas keeps (calls, flops, bytes, seconds), timed by OpenCL profiling
// events or by the host clock. Reading an event's times waits for its command, so device operations
// are booked at once (calls, flops, bytes) and their seconds are added later: when the counters are
// asked for, or when too many operations wait to be timed.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "clkr/blas/op_counters.hpp"
#include "clkr/runtime/opencl.hpp"

namespace clkr::detail {

class OpCounterBook {
 public:
  // One call of `op`: its flops and bytes; the caller may add seconds to what it returns.
  OpCounters& count(const std::string& op, double flops, double bytes);
  // One call of `op` on the device, its seconds to be read from `events` (none when the queue does
  // not profile: the counter keeps its call, flops and bytes).
  void count_device(const std::string& op, double flops, double bytes, std::vector<cl::Event> events, bool profiling);
  // Every counter with its seconds (waits for the commands not timed yet).
  const std::map<std::string, OpCounters>& settled();
  void clear();

 private:
  struct PendingTiming {
    std::string op;
    std::vector<cl::Event> events;
  };
  // Adds the profiled time of all but the newest `keep` pending operations to their counters.
  void settle(std::size_t keep);

  std::map<std::string, OpCounters> counters_;
  std::deque<PendingTiming> pending_;
};

// The counters as a table: operation, calls, seconds, share of the total, GFLOP/s, GB/s, and a total row.
void write_counter_table(std::ostream& out, const std::map<std::string, OpCounters>& counters);

}  // namespace clkr::detail
