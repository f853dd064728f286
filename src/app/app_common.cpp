// Shared helpers of the `clkr` subcommands (format choice, right-hand sides, formatting, progress).
#include "app_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include "cli_options.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {

FormatChoice choose_format(const MatrixStats& stats, const DeviceInfo& device, bool plain_cg) {
  if (stats.nnz == 0) return {Format::Csr, "an empty matrix"};
  const DeviceParams params = device_params(device);  // the defaults, or the device's tuned file
  // Rows of very unequal lengths: CSR runs its load-balanced kernels (row blocks of equal nonzeros, a
  // long row shared by a work-group), which every format's row-per-work-item kernel lacks (HYB's
  // overflow part too) and which read no padding.
  const double ratio = stats.mean_row_length > 0 ? stats.max_row_length / stats.mean_row_length : 1.0;
  const bool balanced = csr_balanced(params.spmv, stats.mean_row_length, stats.max_row_length);
  const std::string balanced_note = balanced ? ", load-balanced kernels (longest/mean row " + number_text(ratio) +
                                                   " >= " + number_text(params.spmv.csr_balanced_min_row_ratio) + ")"
                                             : "";
  // CG on a matrix small enough for the persistent kernel (CSR only): its iteration costs grid barriers
  // instead of launches, 5-7x faster than any format on the fused path for 10^4 rows (docs/performance.md).
  const std::size_t persistent_rows = params.cg.persistent_max_rows;
  if (plain_cg && static_cast<std::size_t>(stats.rows) <= persistent_rows) {
    return {Format::Csr, to_string(device.type) + ": CSR, " + std::to_string(stats.rows) + " rows <= " +
                             std::to_string(persistent_rows) + " (CG runs as a persistent kernel)" + balanced_note};
  }
  if (balanced) return {Format::Csr, to_string(device.type) + ": CSR" + balanced_note};
  if (device.type != DeviceType::Gpu) {
    // CPUs: a work-item walks whole rows in order, with hardware prefetching, so ELL's padding and
    // HYB's second pass only add bytes: CSR, as long as the library runs CSR with one row per
    // work-item, i.e. below spmv.csr_vector_min_mean_row_length (infinite in the CPU defaults; a tuned
    // parameter file may set one). Above it CSR runs its GPU-style vector kernel (a group of lanes per
    // row), which PoCL ran 5-13x slower than CSR4 on the SuiteSparse SPD set; CSR4's scalar kernel reads
    // 4 entries at a time and never switches.
    const double vector_threshold = params.spmv.csr_vector_min_mean_row_length;
    const std::string type = to_string(device.type);
    if (std::isinf(vector_threshold)) return {Format::Csr, type + ": CSR (one row per work-item)"};
    if (stats.mean_row_length < vector_threshold) {
      return {Format::Csr, type + ": CSR, mean row length " + number_text(stats.mean_row_length) + " < " +
                               number_text(vector_threshold) + " (one row per work-item)"};
    }
    return {Format::Csr4, type + ": CSR4, mean row length " + number_text(stats.mean_row_length) +
                              " >= " + number_text(vector_threshold) + " (CSR would use its vector kernel)"};
  }
  // GPUs: one work-item per row wants the column-major ELL layout for coalesced reads; it is worth
  // it when rows are about equally long, i.e. ELL's padding (longest row / mean row) stays under
  // 1.5x the nonzeros. Irregular matrices get SELL-C-sigma: ELL's layout per slice of rows sorted by
  // length, so a slice pads little, in one fused CG kernel, where HYB (an ELL part plus a CSR part for
  // the long rows) runs two SpMV passes and a separate p'q kernel. HYB remains where SELL would still
  // store more than 1.5x CSR's bytes.
  constexpr double max_ell_fill = 1.5;
  const std::string irregular =
      "irregular rows (longest/mean row " + number_text(ratio) + " > " + number_text(max_ell_fill);
  if (ratio <= max_ell_fill) {
    return {Format::Ell, "GPU: ELL, regular rows (longest/mean row " + number_text(ratio) +
                             " <= " + number_text(max_ell_fill) + ")"};
  }
  const auto sell = stats.bytes_per_format.find(Format::Sell), csr = stats.bytes_per_format.find(Format::Csr);
  if (sell != stats.bytes_per_format.end() && csr != stats.bytes_per_format.end()) {
    const double sell_over_csr = static_cast<double>(sell->second) / static_cast<double>(csr->second);
    if (sell_over_csr <= max_ell_fill)
      return {Format::Sell, "GPU: SELL, " + irregular + ", SELL's bytes " + number_text(sell_over_csr) + "x CSR's)"};
    return {Format::Hyb, "GPU: HYB, " + irregular + ", SELL's bytes " + number_text(sell_over_csr) + "x CSR's)"};
  }
  return {Format::Hyb, "GPU: HYB, " + irregular + ")"};
}

std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> v(n);
  // 53 random bits -> [0, 1) -> [-1, 1); std::uniform_real_distribution is implementation-defined.
  for (double& x : v) x = 2.0 * (static_cast<double>(engine() >> 11) * 0x1.0p-53) - 1.0;
  return v;
}

std::string display_name(const std::string& spec) {
  if (is_generator_spec(spec)) return spec;
  std::string name = spec.substr(spec.find_last_of('/') + 1);
  for (const char* suffix : {".gz", ".mtx"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.erase(name.size() - s.size());
    }
  }
  return name;
}

std::vector<double> host_multiply(const HostCsrMatrix& A, const std::vector<double>& x) {
  if (x.size() != static_cast<std::size_t>(A.cols)) {
    throw Error("host_multiply: x has " + std::to_string(x.size()) + " elements, A has " + std::to_string(A.cols) +
                " columns");
  }
  std::vector<double> y(static_cast<std::size_t>(A.rows));
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double sum = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
    }
    y[i] = static_cast<double>(sum);
  }
  return y;
}

double relative_residual(const HostCsrMatrix& A, const std::vector<double>& b, const std::vector<double>& x) {
  const std::vector<double> ax = host_multiply(A, x);
  long double r2 = 0, b2 = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    r2 += static_cast<long double>(b[i] - ax[i]) * (b[i] - ax[i]);
    b2 += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(b2 > 0 ? std::sqrt(r2 / b2) : std::sqrt(r2));
}

bool numerically_symmetric(const HostCsrMatrix& A) {
  if (A.rows != A.cols) return false;
  // Rows are sorted, so each transpose look-up is a binary search.
  for (std::int32_t i = 0; i < A.rows; ++i) {
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = A.col_indices[k];
      const auto first = A.col_indices.begin() + A.row_offsets[j];
      const auto last = A.col_indices.begin() + A.row_offsets[j + 1];
      const auto it = std::lower_bound(first, last, i);
      if (it == last || *it != i || A.values[it - A.col_indices.begin()] != A.values[k]) return false;
    }
  }
  return true;
}

std::string number_text(double x, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
  return buffer;
}

std::string seconds_text(double seconds) {
  char buffer[64];
  if (seconds >= 1 || seconds == 0) {
    std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
  } else if (seconds >= 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g us", seconds * 1e6);
  }
  return buffer;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buffer;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

ProgressLine::ProgressLine(bool enabled) : enabled_(enabled) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::show(const std::string& text) {
  if (!enabled_) return;
  const double now = clock_.seconds();
  if (last_ >= 0 && now - last_ < 0.1) return;
  last_ = now;
  // Pad with spaces so a shorter line fully covers the previous one.
  std::cerr << "\r" << text << std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') << std::flush;
  width_ = text.size();
}

void ProgressLine::clear() {
  if (!enabled_ || width_ == 0) return;
  std::cerr << "\r" << std::string(width_, ' ') << "\r" << std::flush;
  width_ = 0;
}

CgPath cg_path_option(const std::string& value) {
  try {
    return parse_cg_path(value);
  } catch (const Error& e) {
    throw UsageError(std::string("--cg-path: ") + e.what());
  }
}

}  // namespace clkr::app
