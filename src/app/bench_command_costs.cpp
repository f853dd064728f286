// `clkr bench commands`: what the commands that are not bandwidth cost on this device, the constants
// of the AMG setup's cost model (docs/performance-amg-setup.md): a kernel launch (back to back, and followed by a
// wait), a wait for the device (a blocking 8-byte read), transfers between pageable host memory and the
// device, and an allocation with its first touch and its release, by size.
#include <iostream>
#include <memory>

#include "app_common.hpp"
#include "bench_commands.hpp"
#include "bench_common.hpp"
#include "cli_options.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> bench_commands_specs = {
    {"--reps", "N", "repetitions of each measurement, median reported (default 20)"},
    {"--max-mib", "M", "the largest transfer and allocation, MiB (default 512)"},
    {"--device", "SEL", "OpenCL device (as for clkr solve)"},
};

// The median wall time of `reps` runs of `once` (after one uncounted run), in microseconds.
template <class F>
double median_us(int reps, F once) {
  once();
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    Stopwatch clock;
    once();
    samples.push_back(clock.seconds() * 1e6);
  }
  return spread_of(samples).median;
}

void row(const std::string& what, double us, const std::string& note = "") {
  char line[200];
  std::snprintf(line, sizeof line, "%-44s %12.2f  %s\n", what.c_str(), us, note.c_str());
  std::cout << line << std::flush;
}

}  // namespace

int bench_command_costs_command(const Args& args) {
  const ParsedArgs opts("bench commands", bench_commands_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "bench commands [options]",
                "Times what a device charges beyond bandwidth: launches, waits, pageable transfers,\n"
                "allocations with their first touch and release (wall clock, medians).",
                bench_commands_specs);
    return 0;
  }
  if (!opts.positional().empty()) throw UsageError("unexpected argument '" + opts.positional()[0] + "'");
  const int reps = static_cast<int>(opts.integer("--reps", 20, 1, 100000));
  const std::size_t max_bytes = static_cast<std::size_t>(opts.integer("--max-mib", 512, 1, 1 << 20)) << 20;
  BenchProgress progress(false);
  const BenchSetup setup = open_bench_setup(opts, {Precision::Single}, progress);
  Context& c = *setup.context;
  auto& queue = c.queue();
  std::cout << "\n" << std::string(44, ' ') << "  microseconds\n";

  cl::Buffer one = c.allocate(64, "bench commands: probe target");
  cl::Kernel probe = c.kernel("runtime/probe.cl", "probe");
  probe.setArg(0, one);
  auto launch = [&] { queue.enqueueNDRangeKernel(probe, cl::NullRange, cl::NDRange(1), cl::NullRange); };
  constexpr int kBatch = 200;
  row("launch, back to back (per launch of " + std::to_string(kBatch) + ")", median_us(reps, [&] {
                                                                               for (int k = 0; k < kBatch; ++k)
                                                                                 launch();
                                                                               c.finish();
                                                                             }) / kBatch);
  double value = 0;  // 8 bytes, as a count or a dot product is read
  row("launch + blocking 8-byte read (a count read)", median_us(reps, [&] {
        launch();
        queue.enqueueReadBuffer(one, CL_TRUE, 0, 8, &value);
      }));
  row("blocking 8-byte read of an idle queue",
      median_us(reps, [&] { queue.enqueueReadBuffer(one, CL_TRUE, 0, 8, &value); }));
  row("finish() of an idle queue", median_us(reps, [&] { c.finish(); }));

  for (std::size_t bytes = std::size_t{1} << 20; bytes <= max_bytes; bytes *= 8) {
    const std::string size = std::to_string(bytes >> 20) + " MiB";
    std::vector<unsigned char> host(bytes, 1);
    cl::Buffer b = c.allocate(bytes, "bench commands: transfer");
    const double read = median_us(reps, [&] { queue.enqueueReadBuffer(b, CL_TRUE, 0, bytes, host.data()); });
    const double write = median_us(reps, [&] { queue.enqueueWriteBuffer(b, CL_TRUE, 0, bytes, host.data()); });
    row("pageable read " + size, read, number_text(static_cast<double>(bytes) / read * 1e-3) + " GB/s");
    row("pageable write " + size, write, number_text(static_cast<double>(bytes) / write * 1e-3) + " GB/s");
  }

  // An allocation as the AMG setup makes its arrays: created, first written by the device, released
  // (with nothing queued, and while a kernel that uses it is still queued).
  for (std::size_t bytes = 4096; bytes <= max_bytes; bytes *= 16) {
    const std::string size =
        bytes < (1 << 20) ? std::to_string(bytes >> 10) + " KiB" : std::to_string(bytes >> 20) + " MiB";
    std::vector<double> create, touch, release, busy_release;
    for (int r = 0; r <= reps; ++r) {  // the first round is a warm-up
      Stopwatch a;
      auto b = std::make_unique<cl::Buffer>(c.allocate(bytes, "bench commands: allocation"));
      const double t_create = a.seconds() * 1e6;
      Stopwatch t;
      queue.enqueueFillBuffer(*b, cl_uchar{0}, 0, bytes);
      c.finish();
      const double t_touch = t.seconds() * 1e6;
      Stopwatch f;
      b.reset();
      const double t_release = f.seconds() * 1e6;
      auto busy = std::make_unique<cl::Buffer>(c.allocate(bytes, "bench commands: allocation in use"));
      queue.enqueueFillBuffer(*busy, cl_uchar{0}, 0, bytes);
      Stopwatch g;
      busy.reset();  // the fill is still queued (or running)
      const double t_busy = g.seconds() * 1e6;
      c.finish();
      if (r == 0) continue;
      create.push_back(t_create);
      touch.push_back(t_touch);
      release.push_back(t_release);
      busy_release.push_back(t_busy);
    }
    row("allocate " + size, spread_of(create).median);
    row("  first touch (fill + finish) " + size, spread_of(touch).median);
    row("  release " + size, spread_of(release).median);
    row("  release while a fill is queued " + size, spread_of(busy_release).median);
  }
  return 0;
}

}  // namespace clkr::app
