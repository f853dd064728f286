// clkr_bench_blas1: AXPY, AYPX, DOT and SCAL over a log sweep of vector sizes in each precision and
// kernel variant, timed by OpenCL profiling events (median of repeats after a warm-up), with GFLOP/s,
// GB/s and the fraction of the device's copy bandwidth measured in the same run.
//
// Usage: clkr_bench_blas1 [--min N] [--max N] [--points K] [--reps R]
//                         [--precision single|qdouble|double|all] [--variant default|chunked|grid_stride|both]
//                         [--ops axpy,aypx,dot,scal] [--device SELECTOR] [--csv FILE]
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/runtime/error.hpp"

namespace {

struct Options {
  double min = 1e3;
  double max = 2e7;
  int points = 15;
  int reps = 10;
  std::vector<clkr::Precision> precisions = {clkr::Precision::Single, clkr::Precision::QuasiDouble,
                                             clkr::Precision::Double};
  std::string variant = "default";  // default, chunked, grid_stride, both
  std::vector<std::string> ops = {"axpy", "aypx", "dot", "scal"};
  std::string device;
  std::string csv;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "clkr_bench_blas1: " << problem << "\n"
            << "usage: clkr_bench_blas1 [--min N] [--max N] [--points K] [--reps R]\n"
            << "                        [--precision single|qdouble|double|all]\n"
            << "                        [--variant default|chunked|grid_stride|both] [--ops axpy,aypx,dot,scal]\n"
            << "                        [--device SELECTOR] [--csv FILE]\n";
  std::exit(2);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    auto number = [&](const std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(v >= 1)) usage(arg + " needs a number >= 1, got '" + text + "'");
      return v;
    };
    if (arg == "--min") {
      o.min = number(value());
    } else if (arg == "--max") {
      o.max = number(value());
    } else if (arg == "--points") {
      o.points = static_cast<int>(number(value()));
    } else if (arg == "--reps") {
      o.reps = static_cast<int>(number(value()));
    } else if (arg == "--precision") {
      const std::string v = value();
      if (v == "all") continue;
      o.precisions.clear();
      for (const auto& p : split_list(v)) o.precisions.push_back(clkr::parse_precision(p));
    } else if (arg == "--variant") {
      o.variant = value();
      if (o.variant != "default" && o.variant != "chunked" && o.variant != "grid_stride" && o.variant != "both")
        usage("unknown variant '" + o.variant + "'");
    } else if (arg == "--ops") {
      o.ops = split_list(value());
      for (const auto& op : o.ops)
        if (op != "axpy" && op != "aypx" && op != "dot" && op != "scal") usage("unknown operation '" + op + "'");
    } else if (arg == "--device") {
      o.device = value();
    } else if (arg == "--csv") {
      o.csv = value();
    } else if (arg == "--help" || arg == "-h") {
      usage("BLAS1 throughput over vector sizes");
    } else {
      usage("unknown argument '" + arg + "'");
    }
  }
  if (o.min > o.max) usage("--min is larger than --max");
  return o;
}

// `points` sizes spaced evenly in log scale from min to max, rounded, without repeats.
std::vector<std::size_t> log_sweep(double min, double max, int points) {
  std::vector<std::size_t> sizes;
  for (int k = 0; k < points; ++k) {
    const double t = points == 1 ? 0.0 : static_cast<double>(k) / (points - 1);
    const auto n = static_cast<std::size_t>(std::llround(min * std::pow(max / min, t)));
    if (sizes.empty() || sizes.back() != n) sizes.push_back(n);
  }
  return sizes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The device's copy bandwidth (bytes read + written per second): the median of profiled
// enqueueCopyBuffer calls between two buffers of `bytes`.
double copy_bandwidth(clkr::Context& context, std::size_t bytes, int reps) {
  cl::Buffer a = context.allocate(bytes, "copy benchmark source");
  cl::Buffer b = context.allocate(bytes, "copy benchmark target");
  auto& queue = context.queue();
  queue.enqueueFillBuffer(a, cl_uchar(1), 0, bytes);
  queue.enqueueFillBuffer(b, cl_uchar(2), 0, bytes);
  std::vector<double> seconds;
  for (int r = 0; r < reps + 2; ++r) {
    cl::Event e;
    queue.enqueueCopyBuffer(a, b, 0, 0, bytes, nullptr, &e);
    e.wait();
    if (r < 2) continue;  // warm-up: first touches, page mapping
    seconds.push_back(static_cast<double>(e.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                                          e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
                      1e-9);
  }
  return 2.0 * static_cast<double>(bytes) / median(seconds);
}

// The launch parameters of a variant: the device's own (tuned or default) when it already uses it,
// else the default table's settings for that variant.
clkr::DeviceParams params_for(const clkr::DeviceInfo& info, const std::string& variant) {
  clkr::DeviceParams p = clkr::device_params(info);
  if (variant == "default" || clkr::to_string(p.blas1.variant) == variant) return p;
  clkr::DeviceInfo other = info;
  other.type = variant == "chunked" ? clkr::DeviceType::Cpu : clkr::DeviceType::Gpu;
  clkr::DeviceParams q = clkr::default_device_params(other);
  q.spmv = p.spmv;
  return q;
}

struct Row {
  std::string precision, variant, op;
  std::size_t n = 0;
  double seconds = 0, gflops = 0, gbytes = 0, copy_fraction = 0;
};

void run_op(clkr::Blas& blas, const std::string& op, clkr::Vector& x, clkr::Vector& y, int call) {
  // Alternating factors keep repeated SCAL and AYPX from drifting to overflow or zero.
  const double a = call % 2 ? 2.0 : 0.5;
  if (op == "axpy") blas.axpy(a, x, y);
  if (op == "aypx") blas.aypx(a, x, y);
  if (op == "scal") blas.scal(a, y);
  if (op == "dot") blas.dot(x, y);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    auto context = clkr::Context::create(o.device);
    const clkr::DeviceInfo& info = context->info();
    const auto sizes = log_sweep(o.min, o.max, o.points);
    // The reference copy is as large as the largest vector in double, and at least 64 MiB so that
    // it measures memory, not caches.
    const std::size_t copy_bytes =
        std::min<std::size_t>(std::max<std::size_t>(sizes.back() * 8, std::size_t(64) << 20), info.max_allocation / 2);
    std::cerr << "measuring copy bandwidth (" << copy_bytes / (1 << 20) << " MiB)...\n";
    const double copy_bw = copy_bandwidth(*context, copy_bytes, o.reps);
    std::cout << "device: " << info.summary() << "\n"
              << "copy bandwidth: " << std::fixed << std::setprecision(2) << copy_bw * 1e-9
              << " GB/s (enqueueCopyBuffer of " << copy_bytes / (1 << 20) << " MiB, read + write)\n";

    std::vector<std::string> variants = {o.variant};
    if (o.variant == "both") variants = {"chunked", "grid_stride"};
    std::vector<Row> rows;
    const std::size_t total = o.precisions.size() * variants.size() * sizes.size() * o.ops.size();
    std::size_t done = 0;
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(-1.0, 1.0);

    std::cout << std::left << std::setw(8) << "prec" << std::setw(12) << "variant" << std::setw(6) << "op" << std::right
              << std::setw(10) << "n" << std::setw(12) << "time_us" << std::setw(10) << "GFLOP/s" << std::setw(10)
              << "GB/s" << std::setw(9) << "of_copy"
              << "\n";
    for (clkr::Precision p : o.precisions) {
      if (p == clkr::Precision::Double && !info.fp64) {
        std::cerr << "skipping double: " << info.name << " has no fp64\n";
        continue;
      }
      for (const std::string& variant : variants) {
        clkr::BlasOptions options;
        options.params = params_for(info, variant);
        clkr::Blas blas(context, clkr::Location::Device, p, options);
        const std::string variant_name = clkr::to_string(blas.params().blas1.variant);
        for (std::size_t n : sizes) {
          std::vector<double> xs(n), ys(n);
          for (std::size_t i = 0; i < n; ++i) xs[i] = u(rng), ys[i] = u(rng);
          clkr::Vector x(context, xs, "x"), y(context, ys, "y");
          for (const std::string& op : o.ops) {
            std::cerr << "[" << ++done << "/" << total << "] " << clkr::to_string(p) << " " << variant_name << " " << op
                      << " n=" << n << "\n";
            for (int w = 0; w < 2; ++w) run_op(blas, op, x, y, w);  // builds kernels, moves the data
            std::vector<double> seconds;
            double flops = 0, bytes = 0;  // of one call
            for (int r = 0; r < o.reps; ++r) {
              blas.reset_counters();
              run_op(blas, op, x, y, r);
              const clkr::OpCounters& c = blas.counters().at(op);
              seconds.push_back(c.seconds);
              flops = c.flops;
              bytes = c.bytes;
            }
            Row row;
            row.precision = clkr::to_string(p);
            row.variant = variant_name;
            row.op = op;
            row.n = n;
            row.seconds = median(seconds);
            row.gflops = row.seconds > 0 ? flops / row.seconds * 1e-9 : 0;
            const double bytes_per_second = row.seconds > 0 ? bytes / row.seconds : 0;
            row.gbytes = bytes_per_second * 1e-9;
            row.copy_fraction = bytes_per_second / copy_bw;
            rows.push_back(row);
            std::cout << std::left << std::setw(8) << row.precision << std::setw(12) << row.variant << std::setw(6)
                      << row.op << std::right << std::setw(10) << row.n << std::setw(12) << std::setprecision(1)
                      << row.seconds * 1e6 << std::setw(10) << std::setprecision(2) << row.gflops << std::setw(10)
                      << row.gbytes << std::setw(8) << std::setprecision(0) << row.copy_fraction * 100 << "%"
                      << std::endl;
          }
        }
      }
    }

    if (!o.csv.empty()) {
      std::ofstream csv(o.csv);
      if (!csv) throw clkr::Error("cannot write '" + o.csv + "'");
      csv << "device,precision,variant,op,n,seconds,gflops,gbytes_per_s,copy_gbytes_per_s,fraction_of_copy\n";
      csv << std::setprecision(9);
      for (const Row& r : rows)
        csv << '"' << info.name << "\"," << r.precision << ',' << r.variant << ',' << r.op << ',' << r.n << ','
            << r.seconds << ',' << r.gflops << ',' << r.gbytes << ',' << copy_bw * 1e-9 << ',' << r.copy_fraction
            << '\n';
      std::cerr << "wrote " << o.csv << "\n";
    }
  } catch (const clkr::Error& e) {
    std::cerr << "clkr_bench_blas1: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
