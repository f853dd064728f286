// What the `clkr bench` suites share: their common start (device, precisions, progress line), the device
// copy bandwidth every result is compared with, median/min/max of repeated measurements, CSV output,
// and per-call BLAS counter sums.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app_common.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/blas/op_counters.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr::app {

struct CopyBandwidth {
  std::size_t buffer_bytes = 0;  // size of one copy
  int repetitions = 0;
  double gbytes_per_second = 0;  // median; bytes read + bytes written per second
  double min_gbytes_per_second = 0, max_gbytes_per_second = 0;
};

// The device's achievable memory bandwidth, as the roofline that memory-bound kernels are judged
// against: clEnqueueCopyBuffer of 256 MiB (or the largest that fits: a quarter of global memory, at
// most the largest allocation), timed with profiling events, counting bytes read plus bytes written,
// median of 7 copies after one warm-up copy.
CopyBandwidth measure_copy_bandwidth(Context& context);

// The copy bandwidth as the benchmark reports print it first.
void print_copy_bandwidth(std::ostream& out, const CopyBandwidth& copy);

// Progress on stderr: rewritten in place on a terminal; elsewhere (logs) one line per step when
// `log_steps`, nothing otherwise.
class BenchProgress {
 public:
  explicit BenchProgress(bool log_steps);
  void step(const std::string& text);
  void detail(const std::string& text);  // only on a terminal: too chatty for logs
  void clear() { line_.clear(); }

 private:
  bool terminal_;
  bool log_steps_;
  ProgressLine line_;
};

// The --precisions option as given (empty when absent); an unknown name is a UsageError. Parsed
// apart from open_bench_setup so each suite checks its options in its own order before any device
// is opened.
std::vector<Precision> parse_precisions_option(const ParsedArgs& opts);
// A storage format as the benchmarks name it: one of the Formats, or CSR with its kernels pinned
// whatever the row lengths ("csr-balanced": the load-balanced kernels, "csr-rows": never them), so
// that one run compares them.
struct BenchFormat {
  std::string name;
  Format format = Format::Csr;
  bool automatic = false;                            // "auto": choose_format's pick for each matrix
  std::optional<double> csr_balanced_min_row_ratio;  // replaces the device's spmv parameter when set
  // How a Blas runs this format on `device`.
  BlasOptions blas_options(const DeviceInfo& device) const;
  // The format for a matrix with these statistics (plain_cg: timed by CG without a preconditioner).
  Format format_for(const MatrixStats& stats, const DeviceInfo& device, bool plain_cg) const;
  // The name its rows carry: "auto:<format>" for "auto".
  std::string label(Format chosen) const;
};
// The --formats option (default csr,csr4,ell,hyb,sell,dia; auto, csr-balanced and csr-rows besides);
// an unknown name is a UsageError.
std::vector<BenchFormat> parse_formats_option(const ParsedArgs& opts);

struct BenchSetup {
  std::shared_ptr<Context> context;
  std::vector<Precision> precisions;
  CopyBandwidth copy;
};

// The start every bench suite shares: opens the --device context, takes `precisions` or (when empty)
// single and quasi-double, plus double where the device has fp64, prints the device line, then
// measures and prints the copy bandwidth.
BenchSetup open_bench_setup(const ParsedArgs& opts, std::vector<Precision> precisions, BenchProgress& progress);

struct Spread {
  double median = 0, min = 0, max = 0;
};
// Median (mean of the two middle values for an even count), min and max; zeros for no samples.
Spread spread_of(std::vector<double> samples);

// The sum of every operation's counters (after reset_counters(), the work since then).
OpCounters total_of(const std::map<std::string, OpCounters>& counters);

// The operation with the most time, and its share of the total time (0 when nothing was timed).
struct TopKernel {
  std::string name;
  double share = 0;
};
TopKernel top_kernel_of(const std::map<std::string, OpCounters>& counters);

// Writes CSV rows with a fixed header; fields containing commas, quotes or newlines are quoted.
class CsvTable {
 public:
  explicit CsvTable(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  // Starts a row; set() fills columns by name (unset ones stay empty).
  void add_row() { rows_.emplace_back(columns_.size()); }
  void set(const std::string& column, const std::string& value);
  void set(const std::string& column, double value);  // %.6g; NaN/Inf stay empty
  void write(std::ostream& out) const;
  // Writes to `path`, throwing clkr::Error when it cannot be written.
  void write_file(const std::string& path) const;
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace clkr::app
