// `clkr bench spmv [MATRIX...]`: y = A x per matrix x format x precision, timed per call by the Blas
// counters (OpenCL profiling), with GFLOP/s, GB/s and the fraction of the device copy bandwidth.
#include <iostream>

#include "app_common.hpp"
#include "bench_commands.hpp"
#include "bench_common.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> bench_spmv_specs = {
    {"--formats", "LIST",
     "storage formats (default csr,csr4,ell,hyb,sell,dia; auto: the format --format auto picks;\n"
     "csr-balanced and csr-rows: CSR with the load-balanced kernels always or never)"},
    {"--precisions", "LIST", "single,qdouble,double (default: every precision the device has)"},
    {"--reps", "N", "timed calls per configuration, after two warm-up calls (default 20)"},
    {"--csv", "FILE", "write one CSV row per matrix x format x precision"},
    {"--device", "SEL", "OpenCL device (as for clkr solve)"},
};

}  // namespace

int bench_spmv_command(const Args& args) {
  const ParsedArgs opts("bench spmv", bench_spmv_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "bench spmv [MATRIX...] [options]",
                "Times y = A x per call (median of --reps, kernel time from OpenCL profiling) for each MATRIX\n"
                "(default poisson3d:64) in each format and precision.",
                bench_spmv_specs);
    return 0;
  }
  const std::vector<BenchFormat> formats = parse_formats_option(opts);
  std::vector<Precision> requested_precisions = parse_precisions_option(opts);
  const int reps = static_cast<int>(opts.integer("--reps", 20, 1, 100000));
  std::vector<std::string> matrices = opts.positional();
  if (matrices.empty()) matrices.push_back("poisson3d:64");

  BenchProgress progress(false);
  const BenchSetup setup = open_bench_setup(opts, std::move(requested_precisions), progress);
  const std::shared_ptr<Context>& context = setup.context;
  const DeviceInfo& device = context->info();
  const std::vector<Precision>& precisions = setup.precisions;
  const CopyBandwidth& copy = setup.copy;
  std::cout << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %-12s %-8s %12s %12s %9s %9s %7s\n", "matrix", "fmt", "prec", "kernel us",
                "wall us", "GFLOP/s", "GB/s", "%copy");
  std::cout << line;

  CsvTable csv({"matrix", "n", "nnz", "format", "precision", "status", "reps", "seconds_median", "seconds_min",
                "seconds_max", "wall_seconds_median", "gflops", "gbytes_per_s", "copy_gbytes_per_s", "fraction_of_copy",
                "device", "note"});
  for (const std::string& spec : matrices) {
    progress.step("spmv: loading " + spec);
    HostCsrMatrix host;
    std::string load_error;
    try {
      host = load_matrix(spec);
    } catch (const std::exception& e) {
      load_error = one_line(e.what());
    }
    const MatrixStats stats = load_error.empty() ? compute_stats(host) : MatrixStats{};
    for (const BenchFormat& f : formats) {
      const Format format = f.format_for(stats, device, false);
      const std::string name = f.label(format);
      for (Precision p : precisions) {
        progress.step("spmv " + spec + " " + name + " " + to_string(p));
        csv.add_row();
        csv.set("matrix", display_name(spec));
        csv.set("format", name);
        csv.set("precision", to_string(p));
        csv.set("device", device.name);
        try {
          if (!load_error.empty()) throw Error(load_error);
          csv.set("n", std::to_string(host.rows));
          csv.set("nnz", std::to_string(host.nnz()));
          Matrix A(context, host, format, with_sell_layout({}, device_params(device).spmv));
          Blas blas(context, Location::Device, p, f.blas_options(device));
          Vector x(context, random_vector(static_cast<std::size_t>(host.cols), 1), "x");
          Vector y(context, static_cast<std::size_t>(host.rows), "y");
          for (int w = 0; w < 2; ++w) blas.spmv(1.0, A, x, 0.0, y);  // kernels built, values converted
          context->finish();
          std::vector<double> kernel_seconds, wall_seconds;
          OpCounters per_call;
          for (int r = 0; r < reps; ++r) {
            blas.reset_counters();
            Stopwatch clock;
            blas.spmv(1.0, A, x, 0.0, y);
            context->finish();
            wall_seconds.push_back(clock.seconds());
            per_call = total_of(blas.counters());
            kernel_seconds.push_back(per_call.seconds);
          }
          const Spread k = spread_of(kernel_seconds);
          const double wall = spread_of(wall_seconds).median;
          const double gflops = k.median > 0 ? per_call.flops / k.median * 1e-9 : 0;
          const double gbs = k.median > 0 ? per_call.bytes / k.median * 1e-9 : 0;
          csv.set("status", "ok");
          csv.set("reps", std::to_string(reps));
          csv.set("seconds_median", k.median);
          csv.set("seconds_min", k.min);
          csv.set("seconds_max", k.max);
          csv.set("wall_seconds_median", wall);
          csv.set("gflops", gflops);
          csv.set("gbytes_per_s", gbs);
          csv.set("copy_gbytes_per_s", copy.gbytes_per_second);
          csv.set("fraction_of_copy", gbs / copy.gbytes_per_second);
          progress.clear();
          std::snprintf(line, sizeof line, "%-20s %-12s %-8s %12.2f %12.2f %9.3f %9.2f %6.0f%%\n",
                        display_name(spec).c_str(), name.c_str(), to_string(p).c_str(), k.median * 1e6, wall * 1e6,
                        gflops, gbs, 100 * gbs / copy.gbytes_per_second);
          std::cout << line << std::flush;
        } catch (const std::exception& e) {
          csv.set("status", "error");
          csv.set("note", one_line(e.what()));
          progress.clear();
          std::cout << display_name(spec) << " " << name << " " << to_string(p) << ": error: " << one_line(e.what())
                    << "\n";
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
