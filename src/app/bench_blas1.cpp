// `clkr bench blas1`: each BLAS1 operation (AXPY, AYPX, DOT, NRM2, SCAL, COPY) against vector length in
// each precision, timed per call by the Blas counters (OpenCL profiling), with GFLOP/s, GB/s and the
// fraction of the device copy bandwidth measured in the same run.
#include <iostream>

#include "app_common.hpp"
#include "bench_commands.hpp"
#include "bench_common.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> bench_blas1_specs = {
    {"--ops", "LIST", "operations (default axpy,aypx,dot,nrm2,scal,copy)"},
    {"--precisions", "LIST", "single,qdouble,double (default: every precision the device has)"},
    {"--sizes", "LIST", "vector lengths (default 1024,4096,...,16777216: powers of 4)"},
    {"--reps", "N", "timed calls per point, after two warm-up calls (default 20)"},
    {"--csv", "FILE", "write one CSV row per operation x precision x size"},
    {"--device", "SEL", "OpenCL device (as for clkr solve)"},
};

const std::vector<std::string> blas1_ops = {"axpy", "aypx", "dot", "nrm2", "scal", "copy"};

// One call of `op`; the scalars keep repeated calls bounded (|y| stays O(1) over any number of reps).
void call(Blas& blas, const std::string& op, Vector& x, Vector& y) {
  if (op == "axpy") {
    blas.axpy(1e-3, x, y);
  } else if (op == "aypx") {
    blas.aypx(0.5, x, y);
  } else if (op == "dot") {
    blas.dot(x, y);
  } else if (op == "nrm2") {
    blas.nrm2(x);
  } else if (op == "scal") {
    blas.scal(1.0, x);
  } else {
    blas.copy(x, y);
  }
}

}  // namespace

int bench_blas1_command(const Args& args) {
  const ParsedArgs opts("bench blas1", bench_blas1_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "bench blas1 [options]",
                "Times each BLAS1 operation per call (median of --reps, kernel time from OpenCL profiling)\n"
                "against vector length, in each precision.",
                bench_blas1_specs);
    return 0;
  }
  if (!opts.positional().empty()) throw UsageError("unexpected argument '" + opts.positional()[0] + "'");
  const std::vector<std::string> ops = opts.list("--ops", blas1_ops);
  for (const auto& op : ops) {
    if (std::find(blas1_ops.begin(), blas1_ops.end(), op) == blas1_ops.end()) {
      throw UsageError("--ops: unknown operation '" + op + "' (expected axpy, aypx, dot, nrm2, scal, copy)");
    }
  }
  std::vector<std::size_t> sizes;
  {
    std::vector<std::string> fallback;
    for (std::size_t n = 1024; n <= (std::size_t{1} << 24); n *= 4) fallback.push_back(std::to_string(n));
    for (const auto& s : opts.list("--sizes", fallback)) {
      char* end = nullptr;
      const unsigned long long n = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0' || n == 0 || s[0] == '-') {
        throw UsageError("--sizes: '" + s + "' is not a positive integer");
      }
      sizes.push_back(static_cast<std::size_t>(n));
    }
  }
  std::vector<Precision> requested_precisions = parse_precisions_option(opts);
  const int reps = static_cast<int>(opts.integer("--reps", 20, 1, 100000));

  BenchProgress progress(false);
  const BenchSetup setup = open_bench_setup(opts, std::move(requested_precisions), progress);
  const std::shared_ptr<Context>& context = setup.context;
  const DeviceInfo& device = context->info();
  const std::vector<Precision>& precisions = setup.precisions;
  const CopyBandwidth& copy = setup.copy;
  std::cout << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-6s %-8s %10s %12s %12s %9s %9s %7s\n", "op", "prec", "n", "kernel us", "wall us",
                "GFLOP/s", "GB/s", "%copy");
  std::cout << line;

  CsvTable csv({"op", "precision", "n", "status", "reps", "seconds_median", "seconds_min", "seconds_max",
                "wall_seconds_median", "gflops", "gbytes_per_s", "copy_gbytes_per_s", "fraction_of_copy", "device",
                "note"});
  for (Precision p : precisions) {
    for (std::size_t n : sizes) {
      for (const auto& op : ops) {
        progress.step("blas1 " + op + " " + to_string(p) + " n = " + std::to_string(n));
        csv.add_row();
        csv.set("op", op);
        csv.set("precision", to_string(p));
        csv.set("n", std::to_string(n));
        csv.set("device", device.name);
        try {
          Blas blas(context, Location::Device, p);
          Vector x(context, random_vector(n, 1), "x"), y(context, random_vector(n, 2), "y");
          for (int w = 0; w < 2; ++w) call(blas, op, x, y);  // kernels built, vectors uploaded
          context->finish();
          std::vector<double> kernel_seconds, wall_seconds;
          OpCounters per_call;
          for (int r = 0; r < reps; ++r) {
            blas.reset_counters();
            Stopwatch clock;
            call(blas, op, x, y);
            context->finish();
            wall_seconds.push_back(clock.seconds());
            per_call = total_of(blas.counters());
            kernel_seconds.push_back(per_call.seconds);
          }
          const Spread k = spread_of(kernel_seconds);
          const double wall = spread_of(wall_seconds).median;
          const double gflops = k.median > 0 ? per_call.flops / k.median * 1e-9 : 0;
          const double gbs = k.median > 0 ? per_call.bytes / k.median * 1e-9 : 0;
          csv.set("reps", std::to_string(reps));
          csv.set("seconds_median", k.median);
          csv.set("seconds_min", k.min);
          csv.set("seconds_max", k.max);
          csv.set("wall_seconds_median", wall);
          csv.set("gflops", gflops);
          csv.set("gbytes_per_s", gbs);
          csv.set("copy_gbytes_per_s", copy.gbytes_per_second);
          csv.set("fraction_of_copy", gbs / copy.gbytes_per_second);
          csv.set("status", "ok");
          progress.clear();
          std::snprintf(line, sizeof line, "%-6s %-8s %10zu %12.2f %12.2f %9.3f %9.2f %6.0f%%\n", op.c_str(),
                        to_string(p).c_str(), n, k.median * 1e6, wall * 1e6, gflops, gbs,
                        100 * gbs / copy.gbytes_per_second);
          std::cout << line << std::flush;
        } catch (const std::exception& e) {
          csv.set("status", "error");
          csv.set("note", one_line(e.what()));
          progress.clear();
          std::cout << op << " " << to_string(p) << " n = " << n << ": error: " << one_line(e.what()) << "\n";
        }
      }
    }
  }
  progress.clear();
  if (opts.has("--csv")) {
    csv.write_file(opts.text("--csv"));
    std::cout << "wrote " << opts.text("--csv") << "\n";
  }
  return 0;
}

}  // namespace clkr::app
