// clkr_bench_spmv: SpMV y = A*x in every format on one device, with GFLOP/s, GB/s and the fraction of
// the device's copy bandwidth (measured in the same run), next to Eigen's row-major SpMV on the same
// matrix with as many threads as a CPU device has compute units (all cores next to a GPU).
//
// Usage: clkr_bench_spmv [--matrix SPEC ...] [--precision single|qdouble|double] [--reps N]
//                        [--formats csr,csr4,ell,hyb] [--device SELECTOR] [--csv FILE]
// SPEC: a generator ("poisson3d:64", the default) or a Matrix Market file.
#include <Eigen/Sparse>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> matrices;
  clkr::Precision precision = clkr::Precision::Double;
  int reps = 20;
  std::vector<clkr::Format> formats = {clkr::Format::Csr, clkr::Format::Csr4, clkr::Format::Ell, clkr::Format::Hyb};
  std::string device;
  std::string csv;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "clkr_bench_spmv: " << problem << "\n"
            << "usage: clkr_bench_spmv [--matrix SPEC ...] [--precision single|qdouble|double] [--reps N]\n"
            << "                       [--formats csr,csr4,ell,hyb] [--device SELECTOR] [--csv FILE]\n";
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
    if (arg == "--matrix") {
      o.matrices.push_back(value());
    } else if (arg == "--precision") {
      o.precision = clkr::parse_precision(value());
    } else if (arg == "--reps") {
      o.reps = std::atoi(value().c_str());
      if (o.reps < 1) usage("--reps must be at least 1");
    } else if (arg == "--formats") {
      o.formats.clear();
      std::istringstream list(value());
      for (std::string f; std::getline(list, f, ',');) o.formats.push_back(clkr::parse_format(f));
    } else if (arg == "--device") {
      o.device = value();
    } else if (arg == "--csv") {
      o.csv = value();
    } else {
      usage("unknown argument '" + arg + "'");
    }
  }
  if (o.matrices.empty()) o.matrices.push_back("poisson3d:64");
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per call of `first` and of `second` (each returning once its work is done), the medians
// over `reps` calls made in turns after two warm-up calls each: taking turns exposes both to the
// same conditions, which matters on a machine shared with other work.
template <class First, class Second>
std::pair<double, double> time_in_turns(int reps, const First& first, const Second& second) {
  for (int i = 0; i < 2; ++i) {
    first();
    second();
  }
  auto seconds_of = [](const auto& call) {
    const auto start = Clock::now();
    call();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::vector<double> a, b;
  for (int i = 0; i < reps; ++i) {
    a.push_back(seconds_of(first));
    b.push_back(seconds_of(second));
  }
  return {median(a), median(b)};
}

// A copy as a kernel: work-item g copies float4 elements [g*chunk, (g+1)*chunk). One element per
// work-item on GPUs; on CPUs a contiguous chunk per work-item, about four per core (some CPU runtimes
// run clEnqueueCopyBuffer on one thread, which would understate the memory system).
const char* const kCopySource = R"(
__kernel void copy_chunks(__global const float4* from, __global float4* to, const ulong n, const ulong chunk) {
  const ulong begin = get_global_id(0) * chunk;
  const ulong end = min(begin + chunk, n);
  for (ulong i = begin; i < end; ++i) to[i] = from[i];
}
)";

// Device copy bandwidth, bytes read plus written per second, for a copy that moves `traffic` bytes
// (at least 2 MiB) in all, so that it meets the same level of the memory hierarchy as an SpMV moving
// as much: the best of clEnqueueCopyBuffer and the copy kernel, five timed copies each (profiling
// events) after one that touches fresh pages.
double copy_bandwidth(clkr::Context& context, double traffic) {
  const std::size_t bytes = std::max<std::size_t>(static_cast<std::size_t>(traffic / 2) / 16 * 16, 1 << 20);
  cl::Buffer from = context.allocate(bytes, "copy benchmark source");
  cl::Buffer to = context.allocate(bytes, "copy benchmark destination");
  context.queue().enqueueFillBuffer(from, cl_uchar(1), 0, bytes);
  context.queue().enqueueFillBuffer(to, cl_uchar(0), 0, bytes);

  const clkr::DeviceInfo& info = context.info();
  const cl_ulong n = bytes / 16;
  const bool cpu = info.type == clkr::DeviceType::Cpu;
  const cl_ulong items = cpu ? std::max<cl_ulong>(info.compute_units, 1) * 4 : n;
  const cl_ulong chunk = (n + items - 1) / items;
  cl::Kernel kernel(context.program_cache().build_source(kCopySource, "", "copy benchmark"), "copy_chunks");
  kernel.setArg(0, from);
  kernel.setArg(1, to);
  kernel.setArg(2, n);
  kernel.setArg(3, chunk);
  const std::size_t local = cpu ? 1 : std::min<std::size_t>(256, info.max_work_group_size);

  auto seconds = [](const cl::Event& e) {
    return (e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-9;
  };
  double best = 0;
  for (int i = 0; i < 6; ++i) {
    cl::Event copy, kernel_copy;
    context.queue().enqueueCopyBuffer(from, to, 0, 0, bytes, nullptr, &copy);
    context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange((items + local - 1) / local * local),
                                         cl::NDRange(local), nullptr, &kernel_copy);
    kernel_copy.wait();
    if (i > 0) best = std::max({best, 2.0 * bytes / seconds(copy), 2.0 * bytes / seconds(kernel_copy)});
  }
  return best;
}

// Eigen's y = A*x on the same CSR arrays (row-major, so the same traversal).
class EigenSpmv {
 public:
  EigenSpmv(const clkr::HostCsrMatrix& H, const std::vector<double>& x)
      : offsets_(H.row_offsets.begin(), H.row_offsets.end()),  // Eigen's one index type: 32-bit here
        A_(H.rows, H.cols, H.nnz(), offsets_.data(), H.col_indices.data(), H.values.data()),
        x_(x.data(), static_cast<Eigen::Index>(x.size())),
        y_(H.rows) {}
  void operator()() { y_.noalias() = A_ * x_; }

 private:
  std::vector<std::int32_t> offsets_;
  Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, std::int32_t>> A_;
  Eigen::Map<const Eigen::VectorXd> x_;
  Eigen::VectorXd y_;
};

// A CSV field in double quotes, inner quotes doubled.
std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct Row {
  std::string matrix, format, precision, note;
  std::int64_t rows = 0, nnz = 0;
  double seconds = 0;         // per call, end to end (launch, kernels, wait): what a solver sees
  double kernel_seconds = 0;  // per call, the kernels alone (profiling events)
  double gflops = 0, gbytes = 0, copy_fraction = 0, eigen_seconds = 0;
  double copy = 0;  // copy bandwidth for the matrix's traffic, bytes per second
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    const auto context = clkr::Context::create(options.device);
    // Eigen on as many threads as the CPU device uses (its compute units are the cores OpenCL runs on);
    // next to a GPU, on every core OpenMP offers.
    const bool cpu = context->info().type == clkr::DeviceType::Cpu;
    const int threads = cpu ? static_cast<int>(std::max(1u, context->info().compute_units)) : Eigen::nbThreads();
    Eigen::setNbThreads(threads);
    std::cout << std::fixed << "device: " << context->info().summary() << "\nEigen " << EIGEN_WORLD_VERSION << "."
              << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION << " with " << threads << " thread(s)\n\n";

    std::vector<Row> rows;
    for (const std::string& spec : options.matrices) {
      const clkr::HostCsrMatrix H = clkr::load_matrix(spec);
      std::mt19937 rng(1);
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<double> xv(static_cast<std::size_t>(H.cols));
      for (double& v : xv) v = u(rng);
      EigenSpmv eigen(H, xv);
      // What CSR moves in this precision (values, indices, offsets, x, y written).
      const double element = static_cast<double>(clkr::bytes_per_element(options.precision));
      const double copy = copy_bandwidth(
          *context, static_cast<double>(H.nnz()) * (element + 4) + 4.0 * (H.rows + 1) + element * (H.cols + H.rows));

      for (clkr::Format format : options.formats) {
        Row row;
        row.matrix = spec;
        row.format = clkr::to_string(format);
        row.precision = clkr::to_string(options.precision);
        row.rows = H.rows;
        row.nnz = H.nnz();
        row.copy = copy;
        try {
          clkr::Matrix A(context, H, format);
          clkr::Vector x(context, xv, "x"), y(context, static_cast<std::size_t>(H.rows), "y");
          clkr::Blas blas(context, clkr::Location::Device, options.precision);
          std::tie(row.seconds, row.eigen_seconds) = time_in_turns(
              options.reps,
              [&] {
                blas.spmv(1, A, x, 0, y);
                context->finish();
              },
              [&] { eigen(); });
          // Flops, bytes (spmv_cost) and kernel time as the BLAS object counts them, warm-up calls included.
          const clkr::OpCounters& counted = blas.counters().at("spmv");
          const double calls = static_cast<double>(counted.calls);
          row.kernel_seconds = counted.seconds / calls;
          row.gflops = counted.gflops();
          row.gbytes = counted.gbytes_per_second();
          row.copy_fraction = row.gbytes * 1e9 / copy;
        } catch (const clkr::Error& e) {
          row.note = e.what();
        }
        rows.push_back(row);
      }
    }

    std::cout << std::left << std::setw(18) << "matrix" << std::setw(6) << "fmt" << std::setw(9) << "prec" << std::right
              << std::setw(10) << "rows" << std::setw(11) << "nnz" << std::setw(10) << "ms" << std::setw(11)
              << "kernel ms" << std::setw(9) << "GFLOP/s" << std::setw(9) << "GB/s" << std::setw(10) << "copy GB/s"
              << std::setw(8) << "copy%" << std::setw(10) << "Eigen ms" << std::setw(10) << "vs Eigen\n";
    for (const Row& r : rows) {
      std::cout << std::left << std::setw(18) << r.matrix << std::setw(6) << r.format << std::setw(9) << r.precision
                << std::right << std::setw(10) << r.rows << std::setw(11) << r.nnz;
      if (!r.note.empty()) {
        std::cout << "  skipped: " << r.note << "\n";
        continue;
      }
      std::cout << std::setprecision(3) << std::setw(10) << r.seconds * 1e3 << std::setw(11) << r.kernel_seconds * 1e3
                << std::setprecision(2) << std::setw(9) << r.gflops << std::setw(9) << r.gbytes << std::setw(10)
                << r.copy * 1e-9 << std::setw(7) << r.copy_fraction * 100 << "%" << std::setprecision(3)
                << std::setw(10) << r.eigen_seconds * 1e3 << std::setw(9) << r.seconds / r.eigen_seconds << "x\n";
    }
    std::cout << "ms: median per call, end to end (launch, kernels, wait); kernel ms: the kernels alone (profiling\n"
                 "events), from which GFLOP/s, GB/s and copy% are computed; copy GB/s: a device copy moving as many\n"
                 "bytes as CSR SpMV does here (so from the same cache level), copy%: GB/s over it;\n"
                 "vs Eigen: end-to-end time over Eigen's (below 1 is faster).\n";

    if (!options.csv.empty()) {
      std::ofstream csv(options.csv);
      if (!csv) throw clkr::Error("cannot write " + options.csv);
      csv << "matrix,format,precision,rows,nnz,seconds,kernel_seconds,gflops,gbytes_per_s,copy_fraction,"
             "eigen_seconds,time_vs_eigen,copy_gbytes_per_s,eigen_threads,note\n";
      csv << std::setprecision(6);
      for (const Row& r : rows)
        csv << r.matrix << "," << r.format << "," << r.precision << "," << r.rows << "," << r.nnz << "," << r.seconds
            << "," << r.kernel_seconds << "," << r.gflops << "," << r.gbytes << "," << r.copy_fraction << ","
            << r.eigen_seconds << "," << (r.note.empty() ? r.seconds / r.eigen_seconds : 0) << "," << r.copy * 1e-9
            << "," << threads << "," << csv_quoted(r.note) << "\n";
    }
    return 0;
  } catch (const clkr::Error& e) {
    std::cerr << "clkr_bench_spmv: " << e.what() << "\n";
    if (!e.build_log().empty()) std::cerr << e.build_log() << "\n";
    return 1;
  }
}
