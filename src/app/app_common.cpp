// Shared helpers of the `clkr` subcommands (format choice, right-hand sides, formatting, progress).
#include "app_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>

#include "cli_options.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {

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
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
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

bool numerically_symmetric(const HostCsrMatrix& A) { return A.rows == A.cols && numerically_symmetric(A, {}); }

bool numerically_symmetric(const HostCsrMatrix& A, const std::vector<std::int32_t>& row_ids) {
  // The listed row of matrix row `row`, or -1 when it has no entries.
  auto listed = [&](std::int32_t row) -> std::int64_t {
    if (row_ids.empty()) return row;
    const auto it = std::lower_bound(row_ids.begin(), row_ids.end(), row);
    return it != row_ids.end() && *it == row ? it - row_ids.begin() : -1;
  };
  // Rows are sorted, so each transpose look-up is a binary search.
  for (std::int32_t r = 0; r < A.rows; ++r) {
    const std::int32_t i = row_ids.empty() ? r : row_ids[r];
    for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
      const std::int64_t j = listed(A.col_indices[k]);
      if (j < 0) return false;
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

Location backend_option(const std::string& value) {
  try {
    return parse_backend(value);
  } catch (const Error& e) {
    throw UsageError(std::string("--backend: ") + e.what());
  }
}

double inner_tol_option(const ParsedArgs& opts) {
  const double tol = opts.number("--inner-tol", 0, 0);
  if (!(tol > 0 && tol < 1)) throw UsageError("--inner-tol " + opts.text("--inner-tol") + ": must lie in (0, 1)");
  return tol;
}

std::vector<int> int32_row_offsets(const HostCsrMatrix& A, const std::string& peer) {
  if (A.nnz() > std::numeric_limits<int>::max())
    throw Error(peer + " indexes entries in 32 bits; this matrix has " + std::to_string(A.nnz()));
  return {A.row_offsets.begin(), A.row_offsets.end()};
}

}  // namespace clkr::app
