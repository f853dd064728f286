// The statistics of a matrix (compute_stats), the device bytes of each format (matrix_device_bytes)
// and HYB's ELL width: what is known of a matrix's formats before any is built.
#include "matrix_stats.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"
#include "dia_format.hpp"
#include "matrix_formats.hpp"
#include "sell_format.hpp"

namespace clkr {
namespace detail {
namespace {

std::int64_t longest_row(const CsrView& A) {
  std::int64_t longest = 0;
  for (std::int32_t i = 0; i < A.rows; ++i)
    longest = std::max<std::int64_t>(longest, A.row_offsets[i + 1] - A.row_offsets[i]);
  return longest;
}

// The rows the statistics walk: A's own, or (the statistics of a file's nonempty rows) A's row k standing
// for row ids[k] of a matrix of `all` rows, the rows between them empty.
struct RowNumbering {
  ArrayView<std::int32_t> ids;  // empty: row k is row k
  std::int64_t all = 0;
  std::int64_t row(std::int32_t k) const { return ids.empty() ? k : ids[k]; }
};

}  // namespace

std::int32_t hyb_width_of(const CsrView& A, std::int64_t all_rows) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(longest_row(A)) + 2, 0);
  for (std::int32_t i = 0; i < A.rows; ++i) ++lengths[A.row_offsets[i + 1] - A.row_offsets[i]];
  return hyb_width_from_lengths(std::move(lengths), all_rows);
}

MatrixStats matrix_stats(const CsrView& A, ArrayView<std::int32_t> row_ids, std::int64_t all_rows, bool formats) {
  const RowNumbering rows{row_ids, all_rows};
  MatrixStats s;
  s.rows = rows.all;
  s.cols = A.cols;
  s.nnz = A.nnz();
  s.symmetric = A.symmetric;
  s.min_row_length = A.rows > 0 ? INT64_MAX : 0;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    const std::int64_t length = A.row_offsets[i + 1] - A.row_offsets[i];
    s.min_row_length = std::min(s.min_row_length, length);
    s.max_row_length = std::max(s.max_row_length, length);
    if (length == 0) ++s.empty_rows;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      s.bandwidth = std::max<std::int64_t>(s.bandwidth, std::abs(A.col_indices[k] - rows.row(i)));
  }
  if (rows.all > A.rows) {  // rows not listed are empty
    s.empty_rows += rows.all - A.rows;
    s.min_row_length = 0;
  }
  s.mean_row_length = rows.all > 0 ? static_cast<double>(s.nnz) / static_cast<double>(rows.all) : 0.0;
  s.hyb_ell_width = hyb_width_of(A, rows.all);
  if (!formats) return s;
  const LayoutChoices layout = layout_choices(MatrixOptions{}, s.hyb_ell_width);
  for (Format f : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb})
    s.bytes_per_format[f] = format_bytes(format_shape(A, f, layout, rows.all), rows.all, 8);
  const FormatShape sell_slices =
      rows.ids.empty() ? format_shape(A, Format::Sell, layout) : sell_shape(A, layout.sell, rows.ids, rows.all);
  s.bytes_per_format[Format::Sell] = format_bytes(sell_slices, rows.all, 8);
  const FormatShape diagonals = dia_shape(A, MatrixStats::kDiagonalsCounted, rows.ids, rows.all);
  if (!diagonals.dia_more) {
    s.diagonals = static_cast<std::int64_t>(diagonals.dia_offsets.size());
    s.bytes_per_format[Format::Dia] = format_bytes(diagonals, rows.all, 8);
  }
  return s;
}

}  // namespace detail

MatrixStats compute_stats(const HostCsrMatrix& A) {
  A.validate();
  return detail::matrix_stats(A, {}, A.rows);
}

MatrixStats compute_stats(const HostCsrMatrix& listed_rows, const std::vector<std::int32_t>& row_ids,
                          std::int64_t rows) {
  listed_rows.validate();
  if (row_ids.size() != static_cast<std::size_t>(listed_rows.rows))
    throw Error("compute_stats: " + std::to_string(row_ids.size()) + " row ids for " +
                std::to_string(listed_rows.rows) + " listed rows");
  for (std::size_t k = 0; k < row_ids.size(); ++k)
    if (row_ids[k] < 0 || row_ids[k] >= rows || (k > 0 && row_ids[k] <= row_ids[k - 1]))
      throw Error("compute_stats: row id " + std::to_string(row_ids[k]) + " (listed row " + std::to_string(k) +
                  ") is not increasing within [0, " + std::to_string(rows) + ")");
  return detail::matrix_stats(listed_rows, row_ids, rows);
}

std::int64_t matrix_device_bytes(const CsrView& A, Format format, const std::vector<Precision>& precisions, bool fp64) {
  A.validate();
  // The layout a Matrix made with default options has.
  const detail::FormatShape shape =
      detail::format_shape(A, format, detail::layout_choices(MatrixOptions{}, detail::hyb_width_of(A, A.rows)));
  if (shape.dia_more)  // the constructor's refusal (format_checks.cpp): only some diagonals were counted
    throw Error("matrix_device_bytes: DIA refused for a " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                " matrix: its entries lie on more than " + std::to_string(MatrixOptions{}.max_dia_diagonals) +
                " diagonals (MatrixOptions::max_dia_diagonals)");
  auto has = [&](Precision p) { return std::find(precisions.begin(), precisions.end(), p) != precisions.end(); };
  auto context_buffer_bytes = [](std::int64_t bytes) {
    return static_cast<std::int64_t>(Context::buffer_bytes(static_cast<std::size_t>(bytes)));
  };
  // The value arrays of one part of `count` entries: Impl::upload_values, then Impl::values per precision.
  auto values = [&](std::int64_t count) {
    const std::int64_t floats = context_buffer_bytes(4 * count);
    if (!fp64) return 2 * floats;  // head and tail, uploaded
    return context_buffer_bytes(8 * count) + (has(Precision::Single) || has(Precision::QuasiDouble) ? floats : 0) +
           (has(Precision::QuasiDouble) ? floats : 0);
  };
  std::int64_t bytes = 0;
  if (shape.has_csr)
    bytes += context_buffer_bytes(4 * (static_cast<std::int64_t>(A.rows) + 1)) +
             context_buffer_bytes(4 * shape.csr_stored) + values(shape.csr_stored);
  if (shape.has_ell) bytes += context_buffer_bytes(4 * shape.ell_stored()) + values(shape.ell_stored());
  if (shape.has_sell) {  // slice offsets, the row order, column indices and values (Impl::upload)
    const std::int64_t slices =
        (static_cast<std::int64_t>(A.rows) + shape.sell_slice_height - 1) / shape.sell_slice_height;
    bytes += context_buffer_bytes(4 * (slices + 1)) + context_buffer_bytes(4 * static_cast<std::int64_t>(A.rows)) +
             context_buffer_bytes(4 * shape.sell_stored) + values(shape.sell_stored);
  }
  if (shape.has_dia)  // offsets, presence bits and values (Impl::upload)
    bytes += context_buffer_bytes(4 * static_cast<std::int64_t>(shape.dia_offsets.size())) +
             context_buffer_bytes(4 * detail::dia_present_words(shape)) + values(shape.dia_stored());
  return bytes;
}

// The ELL width of HYB from the row-length histogram, after CUSP's compute_optimal_entries_per_row:
// ELL pays off for a column of the ELL block only while enough rows fill it, "enough" being a third
// of the rows (ELL is taken as ~3x faster per entry than CSR, so a column a third full costs what its
// entries would in CSR) and at least 4096 rows (below that a column cannot keep a GPU busy). The width
// is the largest W such that at least max(4096, rows/3) rows have W or more entries, capped by the
// longest row; small matrices (fewer than 4096 rows) get W = 0, a pure CSR4 overflow part.
std::int32_t choose_hyb_width(const HostCsrMatrix& A) {
  A.validate();
  return detail::hyb_width_of(A, A.rows);
}

}  // namespace clkr
