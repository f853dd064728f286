// clkr_bench_amg_update: where the AMG's update step (Preconditioner::update after new values on the
// same pattern) spends its time. One setup, then --updates updates, each after the values grow by 2%
// (a time step). Printed per update: the wall time, its phases and its device commands; and, for the
// last update, the device time of every kernel it launched (OpenCL profiling), longest first, so that
// wall - kernels shows what the host and the waits cost. Profiling slows launches a little: the wall
// times of `clkr bench solve --methods amg-update` (no profiling) are the ones to quote.
//
// Usage: clkr_bench_amg_update [SPEC] [--updates N] [--precond-precision single|double]
//                              [--aggressive LEVELS] [--setup-on auto|device|host] [--device SELECTOR]
// SPEC: a generator (default poisson3d:128) or a Matrix Market file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/format_choice.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string matrix = "poisson3d:128";
  int updates = 5;
  clkr::Precision precond_precision = clkr::Precision::Single;
  int aggressive = 1;
  clkr::AmgOptions::SetupOn setup_on = clkr::AmgOptions::SetupOn::Auto;
  std::string device;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "clkr_bench_amg_update: " << problem << "\n"
            << "usage: clkr_bench_amg_update [SPEC] [--updates N] [--precond-precision single|double]\n"
            << "                             [--aggressive LEVELS] [--setup-on auto|device|host] [--device SELECTOR]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--updates") {
      o.updates = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--precond-precision") {
      o.precond_precision = clkr::parse_precision(value());
    } else if (arg == "--aggressive") {
      o.aggressive = std::atoi(value().c_str());
    } else if (arg == "--setup-on") {
      o.setup_on = clkr::parse_amg_setup_on(value());
    } else if (arg == "--device") {
      o.device = value();
    } else if (!arg.empty() && arg[0] != '-') {
      o.matrix = arg;
    } else {
      usage("unknown option " + arg);
    }
  }
  return o;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void print_update(int k, double wall_ms, const clkr::Amg& amg) {
  std::printf("update %d: %.3f ms;", k, wall_ms);
  for (const auto& [phase, seconds] : amg.update_phases()) std::printf(" %s %.3f ms,", phase.c_str(), seconds * 1e3);
  clkr::CommandCounts c;
  for (const auto& [phase, counts] : amg.update_commands()) c += counts;
  std::printf(" %llu launches, %llu waits (%.3f ms), %llu reads, %llu allocations (%.3f ms)\n",
              static_cast<unsigned long long>(c.launches), static_cast<unsigned long long>(c.waits),
              static_cast<double>(c.wait_nanoseconds) * 1e-6, static_cast<unsigned long long>(c.reads),
              static_cast<unsigned long long>(c.allocations), static_cast<double>(c.allocation_nanoseconds) * 1e-6);
  // A buffer allocated, used by a kernel and released costs ~80 us a command on NVIDIA's OpenCL, against
  // ~6 us for a kernel on a kept buffer (docs/performance-amg-host.md): the allocations by phase.
  std::printf("  allocations by phase:");
  for (const auto& [phase, counts] : amg.update_commands())
    std::printf(" %s %llu,", phase.c_str(), static_cast<unsigned long long>(counts.allocations));
  std::printf("\n");
}

// The last update's kernels by device time: the preconditioner's counters were reset just before it.
void print_kernels(const clkr::Blas& blas, double wall_ms) {
  std::vector<std::pair<std::string, clkr::OpCounters>> kernels(blas.counters().begin(), blas.counters().end());
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  std::printf("%-32s %7s %10s\n", "kernel (last update)", "calls", "device ms");
  for (const auto& [name, c] : kernels) {
    total += c.seconds;
    std::printf("%-32s %7llu %10.3f\n", name.c_str(), static_cast<unsigned long long>(c.calls), c.seconds * 1e3);
  }
  std::printf("%-32s %7s %10.3f (of %.3f ms wall: %.3f ms elsewhere)\n", "all kernels", "", total * 1e3, wall_ms,
              wall_ms - total * 1e3);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  auto context = clkr::Context::create(o.device);  // with profiling: the kernel table needs it
  std::printf("device: %s\nmatrix: %s, hierarchy in %s, aggressive levels %d\n", context->info().summary().c_str(),
              o.matrix.c_str(), clkr::to_string(o.precond_precision).c_str(), o.aggressive);
  const clkr::HostCsrMatrix host = clkr::load_matrix(o.matrix);
  clkr::Matrix A(context, host, clkr::choose_format(clkr::compute_stats(host), context->info(), false).format);
  clkr::Blas blas(context, clkr::Location::Device, clkr::Precision::Double);
  clkr::PrecondOptions options;
  options.kind = clkr::PrecondKind::Amg;
  options.precision = o.precond_precision;
  options.amg.aggressive_levels = o.aggressive;
  options.amg.setup_on = o.setup_on;
  auto t0 = Clock::now();
  auto M = clkr::make_preconditioner(blas, A, options);
  context->finish();
  std::printf("setup: %.3f ms, %zu levels, format %s\n", ms(Clock::now() - t0),
              dynamic_cast<clkr::Amg&>(*M).levels().size(), clkr::to_string(A.format()).c_str());
  std::vector<double> values = host.values;
  double wall = 0;
  for (int k = 1; k <= o.updates; ++k) {
    for (double& v : values) v *= 1.02;
    A.update_values(values);
    context->finish();
    M->blas().reset_counters();
    t0 = Clock::now();
    M->update(A);
    context->finish();
    wall = ms(Clock::now() - t0);
    print_update(k, wall, dynamic_cast<clkr::Amg&>(*M));
  }
  print_kernels(M->blas(), wall);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "clkr_bench_amg_update: " << e.what() << "\n";
  return 1;
}
