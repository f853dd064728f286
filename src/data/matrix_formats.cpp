// The host side of the device matrix formats: sizes, building the arrays, and the inverse.
#include "matrix_formats.hpp"

#include <algorithm>
#include <limits>

#include "../runtime/integer_math.hpp"
#include "../runtime/large_vectors.hpp"
#include "clkr/runtime/error.hpp"
#include "dia_format.hpp"
#include "sell_format.hpp"

namespace clkr::detail {

LayoutChoices layout_choices(const MatrixOptions& options, std::int64_t hyb_width) {
  return {hyb_width, {options.sell_slice_height, options.sell_sort_window}, options.max_dia_diagonals};
}

FormatShape format_shape(const CsrView& A, Format format, const LayoutChoices& layout, std::int64_t all_rows) {
  if (format == Format::Sell || format == Format::Dia) {
    // Their shapes depend on where the unlisted rows lie, which all_rows alone does not say.
    if (all_rows >= 0 && all_rows != A.rows)
      throw Error("format_shape: " + to_string(format) +
                  " of a matrix's listed rows needs their row ids (sell_shape, dia_shape)");
    return format == Format::Sell ? sell_shape(A, layout.sell) : dia_shape(A, layout.dia_max_diagonals);
  }
  FormatShape s;
  s.format = format;
  s.has_csr = format != Format::Ell;
  s.has_ell = format == Format::Ell || format == Format::Hyb;
  std::int64_t longest = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) longest = std::max(longest, A.row_length(i));
  if (s.has_ell) {
    s.ell_width = format == Format::Ell ? longest : layout.hyb_width;
    s.ell_pitch = round_up(all_rows < 0 ? A.rows : all_rows, 32);
  }
  if (format == Format::Csr) {
    s.csr_stored = A.nnz();
  } else if (s.has_csr) {
    for (std::int32_t i = 0; i < A.rows; ++i)
      s.csr_stored += round_up(std::max<std::int64_t>(0, A.row_length(i) - s.ell_width), 4);
  }
  return s;
}

std::int64_t format_bytes(const FormatShape& shape, std::int64_t rows, std::int64_t value_bytes) {
  std::int64_t bytes = 0;
  // CSR's row offsets are 64-bit past 2^31 - 1 entries (Matrix uploads them so).
  const std::int64_t offset_bytes = shape.csr_stored > std::numeric_limits<std::int32_t>::max() ? 8 : 4;
  if (shape.has_csr) bytes += (rows + 1) * offset_bytes + shape.csr_stored * (4 + value_bytes);
  if (shape.has_ell) bytes += shape.ell_stored() * (4 + value_bytes);
  if (shape.has_sell) bytes += sell_bytes(shape, rows, value_bytes);
  if (shape.has_dia) bytes += dia_bytes(shape, value_bytes);
  return bytes;
}

HostFormat build_format(const CsrView& A, const FormatShape& shape) {
  if (shape.has_sell) return build_sell(A, shape);
  if (shape.has_dia) return build_dia(A, shape);
  HostFormat h;
  h.shape = shape;
  const auto width = static_cast<std::int32_t>(shape.ell_width);
  const auto pitch = static_cast<std::int32_t>(shape.ell_pitch);
  if (shape.has_ell) {
    assign_large(h.ell_cols, static_cast<std::size_t>(shape.ell_stored()), -1);
    assign_large(h.ell_values, static_cast<std::size_t>(shape.ell_stored()), 0.0);
  }
  if (shape.has_csr) {
    h.row_offsets.assign(static_cast<std::size_t>(A.rows) + 1, 0);
    reserve_large(h.csr_cols, static_cast<std::size_t>(shape.csr_stored));
    reserve_large(h.csr_values, static_cast<std::size_t>(shape.csr_stored));
  }
  for (std::int32_t i = 0; i < A.rows; ++i) {
    std::int64_t k = A.row_offsets[i];
    const std::int64_t end = A.row_offsets[i + 1];
    for (std::int32_t j = 0; j < width && k < end; ++j, ++k) {
      h.ell_cols[static_cast<std::size_t>(j) * pitch + i] = A.col_indices[k];
      h.ell_values[static_cast<std::size_t>(j) * pitch + i] = A.values[k];
    }
    if (!shape.has_csr) continue;
    h.csr_cols.insert(h.csr_cols.end(), A.col_indices.begin() + k, A.col_indices.begin() + end);
    h.csr_values.insert(h.csr_values.end(), A.values.begin() + k, A.values.begin() + end);
    if (k < end) {
      const auto padding = static_cast<std::size_t>(round_up(end - k, 4) - (end - k));
      h.csr_cols.insert(h.csr_cols.end(), padding, A.col_indices[end - 1]);
      h.csr_values.insert(h.csr_values.end(), padding, 0.0);
    }
    h.row_offsets[i + 1] = static_cast<std::int32_t>(h.csr_cols.size());
  }
  return h;
}

HostCsrMatrix csr_from_format(const HostFormat& h, std::int32_t rows, std::int32_t cols, bool symmetric) {
  if (h.shape.has_sell) return csr_from_sell(h, rows, cols, symmetric);
  if (h.shape.has_dia) return csr_from_dia(h, rows, cols, symmetric);
  const FormatShape& s = h.shape;
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  A.symmetric = symmetric;
  A.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int32_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < s.ell_width; ++j) {
      const std::size_t k = static_cast<std::size_t>(j * s.ell_pitch + i);
      if (h.ell_cols[k] < 0) break;
      A.col_indices.push_back(h.ell_cols[k]);
      A.values.push_back(h.ell_values[k]);
    }
    if (s.has_csr) {
      for (std::int64_t k = h.row_offsets[i]; k < h.row_offsets[i + 1]; ++k) {
        if (k > h.row_offsets[i] && h.csr_cols[k] <= h.csr_cols[k - 1]) break;
        A.col_indices.push_back(h.csr_cols[k]);
        A.values.push_back(h.csr_values[k]);
      }
    }
    A.row_offsets[i + 1] = static_cast<std::int64_t>(A.col_indices.size());
  }
  return A;
}

std::int32_t hyb_width_from_lengths(std::vector<std::int64_t> at_least, std::int64_t rows) {
  // Made cumulative: at_least[w] = number of rows with >= w entries.
  for (std::size_t w = at_least.size() - 1; w-- > 0;) at_least[w] += at_least[w + 1];
  const std::int64_t needed = std::max<std::int64_t>(4096, (rows + 2) / 3);
  std::int32_t width = 0;
  while (width + 1 < static_cast<std::int64_t>(at_least.size()) - 1 && at_least[width + 1] >= needed) ++width;
  return width;
}

}  // namespace clkr::detail
