// The refusals of Matrix's formats, each naming the matrix, what does not fit and what to use instead.
#include "format_checks.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <string>

#include "clkr/runtime/error.hpp"
#include "dia_format.hpp"

namespace clkr::detail {
namespace {

constexpr std::int64_t kIndexLimit = INT32_MAX;

std::string mib(std::int64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::string number(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

std::string matrix_name(const MatrixStats& stats) {
  return std::to_string(stats.rows) + " x " + std::to_string(stats.cols) + " matrix (nnz " + std::to_string(stats.nnz) +
         ")";
}

// SELL: its padding within max_ell_fill_ratio (a row far longer than its window's others pads its
// whole slice to its length), its entries within the kernels' 32-bit indices.
void check_sell_shape(const FormatShape& s, const std::string& name, const std::string& matrix,
                      const MatrixStats& stats, const MatrixOptions& options) {
  if (static_cast<double>(s.sell_stored) > options.max_ell_fill_ratio * static_cast<double>(stats.nnz) &&
      s.sell_stored > 0)
    throw Error("SELL refused for a " + matrix + ": its slices of " + std::to_string(s.sell_slice_height) +
                " rows (sorted within windows of " + std::to_string(s.sell_sort_window) + ") would store " +
                std::to_string(s.sell_stored) + " entries, more than max_ell_fill_ratio (" +
                number(options.max_ell_fill_ratio) +
                ") times nnz; use CSR or HYB (or a larger MatrixOptions::sell_sort_window)");
  if (s.sell_stored + s.sell_slice_height > kIndexLimit)
    throw Error(name + ": its " + std::to_string(s.sell_stored) + " padded entries are past the 32-bit index range");
}

// DIA: few diagonals (MatrixOptions::max_dia_diagonals), little padding (max_ell_fill_ratio: a diagonal
// is stored whole, however few entries it holds), and indices within 32 bits (the kernels form row +
// offset for every slot, and step one pitch past the last diagonal).
void check_dia_shape(const FormatShape& s, const std::string& name, const std::string& matrix, const MatrixStats& stats,
                     const MatrixOptions& options) {
  const std::string use =
      "; DIA suits matrices whose entries lie on a few diagonals (stencils, narrow bands): "
      "use CSR, ELL or SELL";
  if (s.dia_more) {
    // The statistics may have counted them all (up to MatrixStats::kDiagonalsCounted); the search for
    // the layout stopped past the limit.
    const std::string limit = "MatrixOptions::max_dia_diagonals (" + std::to_string(options.max_dia_diagonals) + ")";
    const std::string count =
        stats.diagonals > options.max_dia_diagonals
            ? std::to_string(stats.diagonals) + " diagonals (distinct column - row offsets), more than " + limit
            : "more diagonals (distinct column - row offsets) than " + limit;
    throw Error("DIA refused for a " + matrix + ": its entries lie on " + count + use +
                " (or raise max_dia_diagonals)");
  }
  const auto diagonals = static_cast<std::int64_t>(s.dia_offsets.size());
  const std::int64_t stored = diagonals * stats.rows;
  if (stored > 0 && static_cast<double>(stored) > options.max_ell_fill_ratio * static_cast<double>(stats.nnz))
    throw Error("DIA refused for a " + matrix + ": its " + std::to_string(diagonals) + " diagonals would store " +
                std::to_string(diagonals) + " x " + std::to_string(stats.rows) + " = " + std::to_string(stored) +
                " entries (" + number(static_cast<double>(stored) / static_cast<double>(stats.nnz)) +
                " x nnz), more than max_ell_fill_ratio (" + number(options.max_ell_fill_ratio) + ") times nnz" + use +
                " (or raise MatrixOptions::max_ell_fill_ratio)");
  if (s.dia_stored() + s.dia_pitch > kIndexLimit || stats.rows + stats.cols > kIndexLimit)
    throw Error(name + ": its " + std::to_string(diagonals) + " diagonals of pitch " + std::to_string(s.dia_pitch) +
                " (rows + columns " + std::to_string(stats.rows + stats.cols) +
                ") are past the 32-bit index range of the kernels");
}

}  // namespace

std::string upper_name(Format format) {
  std::string s = to_string(format);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

FormatShape checked_shape(const CsrView& A, Format f, const MatrixStats& stats, const MatrixOptions& options,
                          const DeviceInfo& device) {
  const std::string matrix = matrix_name(stats);
  const std::int64_t rows = stats.rows;
  std::int64_t hyb_width = stats.hyb_ell_width;
  if (options.hyb_ell_width) {
    if (*options.hyb_ell_width < 0)
      throw Error("MatrixOptions::hyb_ell_width must be >= 0, got " + std::to_string(*options.hyb_ell_width));
    // A width past the longest row would only add padding.
    hyb_width = std::min<std::int64_t>(*options.hyb_ell_width, stats.max_row_length);
  }
  const FormatShape s = format_shape(A, f, layout_choices(options, hyb_width));
  const std::string name = upper_name(f) + " for a " + matrix;
  // CSR's kernels read 64-bit row offsets (kernels/common.cl's offset_t); the other formats index their
  // slots in 32 bits.
  if (f != Format::Csr && stats.nnz > kIndexLimit)
    throw Error(name + ": nnz is past the 32-bit index range of the " + upper_name(f) +
                " kernels; only CSR (with 64-bit row offsets) takes more than " + std::to_string(kIndexLimit) +
                " entries");
  if (f == Format::Ell) {
    const double fill = static_cast<double>(s.ell_width) * rows;
    if (fill > options.max_ell_fill_ratio * static_cast<double>(stats.nnz))
      throw Error("ELL refused for a " + matrix + ": its longest row has " + std::to_string(s.ell_width) +
                  " entries, so ELL would store " + std::to_string(s.ell_width) + " x " + std::to_string(rows) + " = " +
                  std::to_string(s.ell_width * rows) + " entries, more than max_ell_fill_ratio (" +
                  number(options.max_ell_fill_ratio) +
                  ") times nnz; use HYB (or raise MatrixOptions::max_ell_fill_ratio)");
  }
  if (s.has_sell) check_sell_shape(s, name, matrix, stats, options);
  if (s.has_dia) check_dia_shape(s, name, matrix, stats, options);
  if (s.has_csr && f != Format::Csr && s.csr_stored > kIndexLimit)
    throw Error(name + ": the padded size of its CSR part (" + std::to_string(s.csr_stored) +
                " entries) is past the 32-bit index range");
  // The SpMV kernels step their index one pitch past the last column: that must fit too.
  if (s.has_ell && s.ell_stored() + s.ell_pitch > kIndexLimit)
    throw Error(name + ": the ELL padded size (width " + std::to_string(s.ell_width) + " x pitch " +
                std::to_string(s.ell_pitch) + " = " + std::to_string(s.ell_stored()) +
                " entries, plus one pitch) is past the 32-bit index range");
  // Checked here, before the host arrays are built, rather than only by Context::allocate.
  const std::int64_t value_bytes = device.fp64 ? 8 : 4;
  auto fits = [&](const char* buffer, std::int64_t bytes) {
    if (bytes > static_cast<std::int64_t>(device.max_allocation))
      throw Error(name + ": its " + buffer + " need " + std::to_string(bytes) + " bytes (" + mib(bytes) +
                  "), more than the largest allocation " + device.name + " allows (" +
                  mib(static_cast<std::int64_t>(device.max_allocation)) + ")");
  };
  if (s.has_csr) {
    const bool wide = f == Format::Csr && (options.wide_offsets || s.csr_stored > kIndexLimit);
    fits("row offsets", (static_cast<std::int64_t>(rows) + 1) * (wide ? 8 : 4));
    fits("column indices", s.csr_stored * 4);
    fits("values", s.csr_stored * value_bytes);
  }
  if (s.has_ell) {
    fits("ELL column indices", s.ell_stored() * 4);
    fits("ELL values", s.ell_stored() * value_bytes);
  }
  if (s.has_sell) {
    fits("SELL column indices", s.sell_stored * 4);
    fits("SELL values", s.sell_stored * value_bytes);
  }
  if (s.has_dia) {
    fits("DIA presence bits", dia_present_words(s) * 4);
    fits("DIA values", s.dia_stored() * value_bytes);
  }
  return s;
}

}  // namespace clkr::detail
