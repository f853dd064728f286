#include "op_counter_book.hpp"

#include <cstdint>
#include <cstdio>
#include <utility>

namespace clkr::detail {
namespace {

// Pending device timings are read once this many operations are waiting (reading waits for them).
constexpr std::size_t kMaxPendingTimings = 256;

double event_seconds(const cl::Event& e) {
  const auto start = e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const auto end = e.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
}

}  // namespace

OpCounters& OpCounterBook::count(const std::string& op, double flops, double bytes) {
  OpCounters& c = counters_[op];
  ++c.calls;
  c.flops += flops;
  c.bytes += bytes;
  return c;
}

void OpCounterBook::count_device(const std::string& op, double flops, double bytes, std::vector<cl::Event> events,
                                 bool profiling) {
  count(op, flops, bytes);
  if (!events.empty() && profiling) pending_.push_back({op, std::move(events)});
  if (pending_.size() > kMaxPendingTimings) settle(kMaxPendingTimings / 2);
}

const std::map<std::string, OpCounters>& OpCounterBook::settled() {
  settle(0);
  return counters_;
}

void OpCounterBook::clear() {
  pending_.clear();
  counters_.clear();
}

void OpCounterBook::settle(std::size_t keep) {
  while (pending_.size() > keep) {
    PendingTiming& t = pending_.front();
    double seconds = 0;
    for (cl::Event& e : t.events) {
      e.wait();
      seconds += event_seconds(e);
    }
    counters_[t.op].seconds += seconds;
    pending_.pop_front();
  }
}

void write_counter_table(std::ostream& out, const std::map<std::string, OpCounters>& counters) {
  OpCounters total;
  for (const auto& [op, c] : counters) total += c;
  char line[160];
  std::snprintf(line, sizeof line, "%-16s %8s %12s %8s %10s %10s\n", "operation", "calls", "seconds", "share",
                "GFLOP/s", "GB/s");
  out << line;
  auto row = [&](const std::string& name, const OpCounters& c) {
    const double share = total.seconds > 0 ? 100.0 * c.seconds / total.seconds : 0.0;
    std::snprintf(line, sizeof line, "%-16s %8llu %12.6f %7.1f%% %10.3f %10.3f\n", name.c_str(),
                  static_cast<unsigned long long>(c.calls), c.seconds, share, c.gflops(), c.gbytes_per_second());
    out << line;
  };
  for (const auto& [op, c] : counters) row(op, c);
  row("total", total);
}

}  // namespace clkr::detail
