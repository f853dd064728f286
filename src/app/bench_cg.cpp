// `clkr bench cg [MATRIX...]`: CG time per iteration for every matrix x format x precision on a
// device, against the CPU references (the library's host backend, Eigen) and ViennaCL's OpenCL CG on
// the same device, with bytes moved per iteration and the fraction of the device's copy bandwidth.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

#include "app_common.hpp"
#include "bench_commands.hpp"
#include "bench_common.hpp"
#include "bench_peers.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "json_writer.hpp"
#ifdef CLKR_WITH_MPI
#include "dist/dist_commands.hpp"
#endif

namespace clkr::app {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

const std::vector<OptionSpec> bench_cg_specs = {
    {"--formats", "LIST",
     "clkr storage formats to time (default csr,csr4,ell,hyb,sell,dia; auto: the format --format auto\n"
     "picks for plain CG; csr-balanced and csr-rows: CSR with the load-balanced kernels always or never)"},
    {"--precisions", "LIST", "single,qdouble,double (default: every precision the device has)"},
    {"--iterations", "N",
     "CG iterations per solve; the tolerance is 0 so every solver runs exactly N\n"
     "(fewer only on breakdown) (default 500)"},
    {"--reps", "N", "timed repetitions of each configuration, interleaved, each after 30 ms of warm-up\n(default 5)"},
    {"--cg-path", "P", kCgPathHelp},
    {"--peers", "LIST", "references to run: host,eigen,viennacl or none (default host,eigen,viennacl)"},
    {"--csv", "FILE", "write one CSV row per configuration (columns: docs/benchmarks.md)"},
    {"--json", "FILE", "write the rows, the device and the copy bandwidth as JSON"},
    {"--device", "SEL", "OpenCL device (as for clkr solve)"},
};

// One timed configuration: an implementation (clkr on the device, clkr's host backend, Eigen,
// ViennaCL) on one matrix in one format and precision.
struct Row {
  std::string matrix;
  std::int64_t n = 0, nnz = 0;
  std::string implementation, format, precision;
  std::string status = "ok";  // "ok", "skipped", "unavailable", "error", or a solver status ("not-spd")
  std::string note;
  int iterations = 0, reps = 0;
  Spread wall;           // seconds per iteration, wall clock
  double profile = nan;  // median seconds per iteration in kernels (OpenCL profiling / host clock)
  double bytes = nan;    // bytes moved per iteration, from the BLAS counters
  TopKernel top;
  double true_residual = nan;
  std::map<std::string, OpCounters> kernels;  // the last repetition's counters (clkr rows)
  double vs_eigen = nan, vs_viennacl_csr = nan, vs_viennacl_hyb = nan, vs_host = nan;
};

// clkr's CG on the device (or its host backend) in one format and precision.
class ClkrCg : public CgRunner {
 public:
  ClkrCg(const std::shared_ptr<Context>& context, const HostCsrMatrix& host, const std::vector<double>& b,
         Location location, Format format, Precision precision, int iterations, CgPath path = CgPath::Auto,
         const BlasOptions& blas_options = {})
      : A_(context, host, format, with_sell_layout({}, device_params(context->info()).spmv)),
        blas_(context, location, precision, blas_options),
        b_(context, b, "b"),
        x_(context, host.rows, "x") {
    options_.relative_tolerance = 0;  // a fixed iteration count, as the CUKr thesis timed
    options_.max_iterations = iterations;
    options_.cg_path = path;
    warm_options_ = options_;
    warm_options_.max_iterations = std::min(iterations, kWarmUpIterations);
    warm_up();  // kernels built, values converted, b uploaded
  }

  void warm_up() override { cg(blas_, A_, b_, x_, warm_options_); }

  CgSample solve() override {
    blas_.reset_counters();
    result_ = cg(blas_, A_, b_, x_, options_);
    CgSample s;
    s.seconds = result_.seconds;  // the solve's wall time, the final host-side true residual excluded
    s.iterations = result_.iterations;
    s.kernels = blas_.counters();
    if (result_.status != SolveStatus::MaxIterations && result_.status != SolveStatus::Converged) {
      s.stopped = to_string(result_.status) + ": " + result_.message;
    }
    return s;
  }

  double true_relative_residual() override { return result_.true_relative_residual; }

  std::string description() const override { return "BLAS parameters " + blas_.params().source; }

 private:
  Matrix A_;
  Blas blas_;
  Vector b_, x_;
  SolveOptions options_, warm_options_;
  SolveResult result_;
};

// One row of the report while it is being measured.
struct Config {
  Row row;
  std::unique_ptr<CgRunner> runner;  // null once finished or failed
  std::vector<CgSample> samples;
  std::string label;  // for progress
};

// Builds a runner, recording in the row why it cannot run.
template <class Make>
Config configure(Row row, const std::string& label, BenchProgress& progress, Make make) {
  Config c;
  c.row = std::move(row);
  c.label = label;
  progress.step(label + ": setting up and warming up");
  try {
    c.runner = make();
    c.row.note = c.runner->description();
  } catch (const Unavailable& e) {
    c.row.status = "unavailable";
    c.row.note = e.what();
  } catch (const std::exception& e) {
    c.row.status = "error";
    c.row.note = one_line(e.what());
  }
  return c;
}

// The row's statistics from its samples (per iteration: wall time, kernel time, bytes).
void summarize(Config& c, int iterations) {
  Row& row = c.row;
  std::vector<double> wall, profile, bytes;
  for (const CgSample& s : c.samples) {
    const int done = std::max(s.iterations, 1);
    wall.push_back(s.seconds / done);
    if (!s.kernels.empty()) {
      const OpCounters total = total_of(s.kernels);
      profile.push_back(total.seconds / done);
      bytes.push_back(total.bytes / done);
    }
  }
  row.reps = static_cast<int>(c.samples.size());
  if (c.samples.empty()) return;
  const CgSample& last = c.samples.back();
  row.iterations = last.iterations;
  row.wall = spread_of(wall);
  if (!profile.empty()) {
    row.profile = spread_of(profile).median;
    row.bytes = spread_of(bytes).median;
    row.kernels = last.kernels;
    row.top = top_kernel_of(row.kernels);
  }
  if (!last.stopped.empty()) {
    row.status = last.stopped.substr(0, last.stopped.find(':'));
    row.note = last.stopped;
  } else if (last.iterations < iterations) {
    row.note += (row.note.empty() ? "" : "; ") + std::string("stopped after ") + std::to_string(last.iterations) +
                " iterations (residual exactly 0)";
  }
}

double ratio(const Row& mine, const std::vector<Config>& configs, const std::string& implementation,
             const std::string& format) {
  if (mine.status != "ok") return nan;
  for (const Config& c : configs) {
    const Row& r = c.row;
    if (r.implementation == implementation && r.precision == mine.precision && (format.empty() || r.format == format) &&
        r.status == "ok" && r.wall.median > 0) {
      return mine.wall.median / r.wall.median;
    }
  }
  return nan;
}

void print_header(std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-10s %-12s %-8s %5s %22s %7s %6s %-16s %8s %8s %8s\n", "matrix", "impl",
                "fmt", "prec", "iters", "ms/iter median [range]", "GB/s", "%copy", "top kernel", "vs eigen", "vs vcl",
                "vs host");
  out << line;
}

void print_row(std::ostream& out, const Row& r, double copy_gbs) {
  char line[512];
  auto cell = [](double x, const char* fmt) {
    char buffer[32];
    if (std::isnan(x)) return std::string("-");
    std::snprintf(buffer, sizeof buffer, fmt, x);
    return std::string(buffer);
  };
  if (r.status != "ok") {
    std::snprintf(line, sizeof line, "%-16s %-10s %-12s %-8s %s: %s\n", r.matrix.c_str(), r.implementation.c_str(),
                  r.format.c_str(), r.precision.c_str(), r.status.c_str(), r.note.c_str());
    out << line;
    return;
  }
  char timing[64];
  std::snprintf(timing, sizeof timing, "%.3f [%.3f, %.3f]", r.wall.median * 1e3, r.wall.min * 1e3, r.wall.max * 1e3);
  const double gbs = r.bytes / r.wall.median * 1e-9;
  const std::string top = r.top.name.empty() ? "-" : r.top.name + " " + cell(100 * r.top.share, "%.0f%%");
  std::snprintf(line, sizeof line, "%-16s %-10s %-12s %-8s %5d %22s %7s %6s %-16s %8s %8s %8s\n", r.matrix.c_str(),
                r.implementation.c_str(), r.format.c_str(), r.precision.c_str(), r.iterations, timing,
                cell(gbs, "%.2f").c_str(), cell(100 * gbs / copy_gbs, "%.0f%%").c_str(), top.c_str(),
                cell(r.vs_eigen, "%.2f").c_str(),
                cell(std::isnan(r.vs_viennacl_csr) ? r.vs_viennacl_hyb : r.vs_viennacl_csr, "%.2f").c_str(),
                cell(r.vs_host, "%.2f").c_str());
  out << line << std::flush;
}

const std::vector<std::string> csv_columns = {"matrix",
                                              "n",
                                              "nnz",
                                              "implementation",
                                              "format",
                                              "precision",
                                              "status",
                                              "iterations",
                                              "reps",
                                              "wall_s_per_iter_median",
                                              "wall_s_per_iter_min",
                                              "wall_s_per_iter_max",
                                              "profile_s_per_iter_median",
                                              "bytes_per_iter",
                                              "gbytes_per_s",
                                              "copy_gbytes_per_s",
                                              "fraction_of_copy",
                                              "top_kernel",
                                              "top_kernel_share",
                                              "true_relative_residual",
                                              "ratio_vs_eigen",
                                              "ratio_vs_viennacl_csr",
                                              "ratio_vs_viennacl_hyb",
                                              "ratio_vs_host",
                                              "device",
                                              "note"};

void add_csv_row(CsvTable& csv, const Row& r, double copy_gbs, const std::string& device) {
  const double gbs = r.bytes / r.wall.median * 1e-9;
  csv.add_row();
  csv.set("matrix", r.matrix);
  csv.set("n", std::to_string(r.n));
  csv.set("nnz", std::to_string(r.nnz));
  csv.set("implementation", r.implementation);
  csv.set("format", r.format);
  csv.set("precision", r.precision);
  csv.set("status", r.status);
  csv.set("iterations", std::to_string(r.iterations));
  csv.set("reps", std::to_string(r.reps));
  if (r.reps > 0) {
    csv.set("wall_s_per_iter_median", r.wall.median);
    csv.set("wall_s_per_iter_min", r.wall.min);
    csv.set("wall_s_per_iter_max", r.wall.max);
  }
  csv.set("profile_s_per_iter_median", r.profile);
  csv.set("bytes_per_iter", r.bytes);
  csv.set("gbytes_per_s", gbs);
  csv.set("copy_gbytes_per_s", copy_gbs);
  csv.set("fraction_of_copy", gbs / copy_gbs);
  csv.set("top_kernel", r.top.name);
  if (!r.top.name.empty()) csv.set("top_kernel_share", r.top.share);
  csv.set("true_relative_residual", r.true_residual);
  csv.set("ratio_vs_eigen", r.vs_eigen);
  csv.set("ratio_vs_viennacl_csr", r.vs_viennacl_csr);
  csv.set("ratio_vs_viennacl_hyb", r.vs_viennacl_hyb);
  csv.set("ratio_vs_host", r.vs_host);
  csv.set("device", device);
  csv.set("note", r.note);
}

void write_bandwidth(JsonWriter& j, const CopyBandwidth& copy) {
  j.begin_object()
      .member("buffer_bytes", static_cast<std::uint64_t>(copy.buffer_bytes))
      .member("gbytes_per_second", copy.gbytes_per_second)
      .member("min_gbytes_per_second", copy.min_gbytes_per_second)
      .member("max_gbytes_per_second", copy.max_gbytes_per_second)
      .end_object();
}

void write_json(const std::string& path, const std::vector<Row>& rows, const DeviceInfo& device,
                const CopyBandwidth& copy, int iterations, int reps) {
  std::ofstream out(path);
  if (!out) throw Error("--json: cannot open '" + path + "' for writing");
  JsonWriter j(out);
  j.begin_object()
      .member("benchmark", "cg")
      .member("device", device.summary())
      .member("device_selector", device.index_selector())
      .member("iterations", iterations)
      .member("reps", reps);
  j.key("copy_bandwidth");
  write_bandwidth(j, copy);
  j.key("rows").begin_array();
  for (const Row& r : rows) {
    j.begin_object()
        .member("matrix", r.matrix)
        .member("n", r.n)
        .member("nnz", r.nnz)
        .member("implementation", r.implementation)
        .member("format", r.format)
        .member("precision", r.precision)
        .member("status", r.status)
        .member("note", r.note)
        .member("iterations", r.iterations)
        .member("reps", r.reps)
        .member("wall_s_per_iter_median", r.reps ? r.wall.median : nan)
        .member("wall_s_per_iter_min", r.reps ? r.wall.min : nan)
        .member("wall_s_per_iter_max", r.reps ? r.wall.max : nan)
        .member("profile_s_per_iter_median", r.profile)
        .member("bytes_per_iter", r.bytes)
        .member("gbytes_per_s", r.bytes / r.wall.median * 1e-9)
        .member("fraction_of_copy", r.bytes / r.wall.median * 1e-9 / copy.gbytes_per_second)
        .member("true_relative_residual", r.true_residual)
        .member("ratio_vs_eigen", r.vs_eigen)
        .member("ratio_vs_viennacl_csr", r.vs_viennacl_csr)
        .member("ratio_vs_viennacl_hyb", r.vs_viennacl_hyb)
        .member("ratio_vs_host", r.vs_host);
    j.key("kernels").begin_array();
    for (const auto& [name, c] : r.kernels) {
      j.begin_object()
          .member("name", name)
          .member("calls", static_cast<std::uint64_t>(c.calls))
          .member("seconds", c.seconds)
          .member("gflops", c.gflops())
          .member("gbytes_per_second", c.gbytes_per_second())
          .end_object();
    }
    j.end_array().end_object();
  }
  j.end_array().end_object();
  out << "\n";
  if (!out.flush()) throw Error("--json: writing '" + path + "' failed");
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

int bench_cg_command(const Args& args) {
#ifdef CLKR_WITH_MPI
  if (started_by_mpi_launcher()) return dist_bench_cg_command(args);
#endif
  const ParsedArgs opts("bench cg", bench_cg_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "bench cg [MATRIX...] [options]",
                "Times unpreconditioned CG (fixed iteration count, b = A * ones) for each MATRIX (default\n"
                "poisson3d:64) x format x precision, against clkr's host backend, Eigen's ConjugateGradient\n"
                "and ViennaCL's OpenCL CG on the same device. Rows that cannot run say why.\n"
                "Exit code 0 when the benchmark ran (whatever its rows say), 2 on usage errors.",
                bench_cg_specs);
    return 0;
  }
  const std::vector<BenchFormat> formats = parse_formats_option(opts);
  std::vector<Precision> requested_precisions = parse_precisions_option(opts);
  const std::vector<std::string> peers = opts.list("--peers", {"host", "eigen", "viennacl"});
  for (const auto& p : peers) {
    if (p != "host" && p != "eigen" && p != "viennacl" && p != "none") {
      throw UsageError("--peers: unknown reference '" + p + "' (expected host, eigen, viennacl or none)");
    }
  }
  const int iterations = static_cast<int>(opts.integer("--iterations", 500, 1, 100000000));
  const int reps = static_cast<int>(opts.integer("--reps", 5, 1, 1000));
  const CgPath cg_path = opts.has("--cg-path") ? cg_path_option(opts.text("--cg-path")) : CgPath::Auto;
  std::vector<std::string> matrices = opts.positional();
  if (matrices.empty()) matrices.push_back("poisson3d:64");

  BenchProgress progress(true);
  const BenchSetup setup = open_bench_setup(opts, std::move(requested_precisions), progress);
  const std::shared_ptr<Context>& context = setup.context;
  const DeviceInfo& device = context->info();
  const std::vector<Precision>& precisions = setup.precisions;
  const CopyBandwidth& copy = setup.copy;
  std::cout << "CG: " << iterations << " iterations (tolerance 0), b = A * ones, " << reps
            << " repetitions after a warm-up; times are wall clock per iteration\n\n";
  print_header(std::cout);

  std::vector<Row> rows;
  CsvTable csv(csv_columns);
  auto emit = [&](Row row) {
    progress.clear();
    print_row(std::cout, row, copy.gbytes_per_second);
    add_csv_row(csv, row, copy.gbytes_per_second, device.name);
    rows.push_back(std::move(row));
  };

  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const std::string name = display_name(matrices[m]);
    const std::string where = "[" + std::to_string(m + 1) + "/" + std::to_string(matrices.size()) + "] " + name;
    Row base;
    base.matrix = name;
    base.implementation = "all";
    progress.step(where + ": loading");
    HostCsrMatrix host;
    try {
      host = load_matrix(matrices[m]);
    } catch (const std::exception& e) {
      base.status = "error";
      base.note = one_line(e.what());
      emit(base);
      continue;
    }
    base.n = host.rows;
    base.nnz = host.nnz();
    if (host.rows != host.cols || !numerically_symmetric(host)) {
      base.status = "skipped";
      base.note = host.rows != host.cols ? "not square: CG needs a symmetric positive definite matrix"
                                         : "not symmetric: CG needs a symmetric positive definite matrix";
      emit(base);
      continue;
    }
    const std::vector<double> b = host_multiply(host, std::vector<double>(static_cast<std::size_t>(host.rows), 1.0));
    auto row_of = [&](const std::string& implementation, Format f, Precision p) {
      Row row = base;
      row.implementation = implementation;
      row.format = to_string(f);
      row.precision = to_string(p);
      return row;
    };

    // Every configuration of this matrix, references first.
    std::vector<Config> configs;
    for (Precision p : precisions) {
      if (p == Precision::QuasiDouble) continue;  // no reference has quasi-double
      if (contains(peers, "eigen")) {
        configs.push_back(configure(row_of("eigen", Format::Csr, p), where + ": eigen " + to_string(p), progress,
                                    [&] { return make_eigen_cg(host, b, iterations, p); }));
      }
      if (contains(peers, "viennacl")) {
        for (Format f : {Format::Csr, Format::Hyb}) {
          configs.push_back(configure(row_of("viennacl", f, p),
                                      where + ": viennacl " + to_string(f) + " " + to_string(p), progress,
                                      [&] { return make_viennacl_cg(*context, host, b, iterations, p, f); }));
        }
      }
    }
    if (contains(peers, "host")) {
      configs.push_back(
          configure(row_of("clkr-host", Format::Csr, Precision::Double), where + ": clkr host backend", progress, [&] {
            return std::make_unique<ClkrCg>(context, host, b, Location::Host, Format::Csr, Precision::Double,
                                            iterations);
          }));
    }
    const MatrixStats stats = compute_stats(host);
    for (const BenchFormat& f : formats) {
      const Format format = f.format_for(stats, device, true);
      for (Precision p : precisions) {
        Row row = row_of("clkr", format, p);
        row.format = f.label(format);
        configs.push_back(configure(row, where + ": clkr " + row.format + " " + to_string(p), progress, [&] {
          return std::make_unique<ClkrCg>(context, host, b, Location::Device, format, p, iterations, cg_path,
                                          f.blas_options(device));
        }));
      }
    }

    // Repetitions interleaved across configurations, so that load from elsewhere on the machine
    // spreads over all of them instead of spoiling one.
    for (int r = 0; r < reps; ++r) {
      const std::string repetition = where + ": repetition " + std::to_string(r + 1) + "/" + std::to_string(reps);
      progress.step(repetition);
      for (Config& c : configs) {
        if (!c.runner) continue;
        progress.detail(repetition + ": " + c.label.substr(where.size() + 2));
        try {
          // Short untimed solves for 30 ms first: OpenMP runtimes (Eigen, the host backend) keep their
          // threads spinning for milliseconds after a parallel region and would steal the cores from
          // whatever is timed next (clkr ran 30-40% slower right after Eigen on PoCL), and an idle gap
          // instead lets the cores go cold (also slower). This way every timed solve starts hot.
          Stopwatch warm;
          do c.runner->warm_up();
          while (warm.seconds() < 0.03);
          c.samples.push_back(c.runner->solve());
          if (!c.samples.back().stopped.empty()) {
            c.row.true_residual = c.runner->true_relative_residual();
            c.runner.reset();  // a solve that breaks down (not SPD) is not repeated
          }
        } catch (const std::exception& e) {
          c.row.status = "error";
          c.row.note = one_line(e.what());
          c.runner.reset();
        }
      }
    }
    for (Config& c : configs) {
      if (c.runner) c.row.true_residual = c.runner->true_relative_residual();
      c.runner.reset();
      if (c.row.status == "ok" || !c.samples.empty()) summarize(c, iterations);
    }
    for (Config& c : configs) {
      Row& row = c.row;
      if (row.implementation != "clkr") continue;
      row.vs_eigen = ratio(row, configs, "eigen", "");
      row.vs_viennacl_csr = ratio(row, configs, "viennacl", "csr");
      row.vs_viennacl_hyb = ratio(row, configs, "viennacl", "hyb");
      row.vs_host = ratio(row, configs, "clkr-host", "");
    }
    for (Config& c : configs) emit(std::move(c.row));
  }
  progress.clear();
  std::cout << "\nratios are clkr / reference time per iteration in the same precision (< 1: clkr is faster); "
               "GB/s = BLAS-counted bytes per iteration / wall time\n";
  if (opts.has("--csv")) {
    csv.write_file(opts.text("--csv"));
    std::cout << "wrote " << opts.text("--csv") << "\n";
  }
  if (opts.has("--json")) {
    write_json(opts.text("--json"), rows, device, copy, iterations, reps);
    std::cout << "wrote " << opts.text("--json") << "\n";
  }
  return 0;
}

}  // namespace clkr::app
