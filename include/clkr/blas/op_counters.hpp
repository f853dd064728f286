// Performance counters of one BLAS operation: calls, time from OpenCL profiling events (or the
// host clock for the host backend), and flops and bytes counted from the operation and format.
#pragma once

#include <cstdint>

namespace clkr {

struct OpCounters {
  std::uint64_t calls = 0;
  double seconds = 0;
  double flops = 0;
  double bytes = 0;

  // Adds another operation's counts (a total over operations).
  OpCounters& operator+=(const OpCounters& other) {
    calls += other.calls;
    seconds += other.seconds;
    flops += other.flops;
    bytes += other.bytes;
    return *this;
  }

  double gflops() const { return seconds > 0 ? flops / seconds * 1e-9 : 0; }
  double gbytes_per_second() const { return seconds > 0 ? bytes / seconds * 1e-9 : 0; }
};

}  // namespace clkr
