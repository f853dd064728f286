// SELL-C-sigma on the host: the window sort, the slice widths, the arrays and their inverse.
#include "sell_format.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "../runtime/large_vectors.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

std::int64_t slices_of(std::int64_t rows, std::int64_t height) { return (rows + height - 1) / height; }

// Slice s's width: its first sorted row is its longest when the slices lie within the windows; in
// general (a window that is not a multiple of the slice height) the longest of its rows.
std::vector<std::int64_t> slice_widths(const CsrView& A, const std::vector<std::int32_t>& order, std::int64_t height) {
  std::vector<std::int64_t> widths(static_cast<std::size_t>(slices_of(A.rows, height)), 0);
  for (std::size_t r = 0; r < order.size(); ++r) {
    std::int64_t& w = widths[r / static_cast<std::size_t>(height)];
    w = std::max(w, A.row_length(order[r]));
  }
  return widths;
}

}  // namespace

std::vector<std::int32_t> sell_order(const CsrView& A, std::int64_t sort_window) {
  std::vector<std::int32_t> order(static_cast<std::size_t>(A.rows));
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t first = 0; first < A.rows; first += sort_window) {
    const auto begin = order.begin() + first, end = order.begin() + std::min<std::int64_t>(first + sort_window, A.rows);
    std::stable_sort(begin, end, [&](std::int32_t a, std::int32_t b) { return A.row_length(a) > A.row_length(b); });
  }
  return order;
}

FormatShape sell_shape(const CsrView& A, const SellLayout& layout) {
  if (layout.slice_height < 1 || layout.sort_window < 1)
    throw Error("SELL needs a slice height and a sort window of at least 1 row (MatrixOptions::sell_slice_height = " +
                std::to_string(layout.slice_height) + ", sell_sort_window = " + std::to_string(layout.sort_window) +
                ")");
  FormatShape s;
  s.format = Format::Sell;
  s.has_sell = true;
  s.sell_slice_height = layout.slice_height;
  s.sell_sort_window = layout.sort_window;
  for (std::int64_t w : slice_widths(A, sell_order(A, layout.sort_window), layout.slice_height))
    s.sell_stored += w * layout.slice_height;
  return s;
}

FormatShape sell_shape(const CsrView& A, const SellLayout& layout, ArrayView<std::int32_t> row_ids,
                       std::int64_t all_rows) {
  if (all_rows < A.rows || row_ids.size() != static_cast<std::size_t>(A.rows))
    throw Error("sell_shape: " + std::to_string(row_ids.size()) + " row ids for " + std::to_string(A.rows) +
                " listed rows of " + std::to_string(all_rows));
  FormatShape s = sell_shape(CsrView{}, layout);  // the layout checked, nothing stored yet
  // Window by window, the listed rows sorted longest first take the window's first places (the empty
  // rows, length 0, sort after them); a slice's width is the longest row placed in it. Places only grow,
  // so one slice is open at a time.
  std::int64_t open_slice = -1, open_width = 0;
  std::vector<std::int64_t> lengths;
  for (std::size_t k = 0; k < row_ids.size();) {
    const std::int64_t window = row_ids[k] / layout.sort_window;
    lengths.clear();
    for (; k < row_ids.size() && row_ids[k] / layout.sort_window == window; ++k)
      lengths.push_back(A.row_length(static_cast<std::int32_t>(k)));
    std::sort(lengths.begin(), lengths.end(), std::greater<>());
    for (std::size_t j = 0; j < lengths.size(); ++j) {
      const std::int64_t slice = (window * layout.sort_window + static_cast<std::int64_t>(j)) / layout.slice_height;
      if (slice != open_slice) {
        s.sell_stored += open_width * layout.slice_height;
        open_slice = slice;
        open_width = 0;
      }
      open_width = std::max(open_width, lengths[j]);
    }
  }
  s.sell_stored += open_width * layout.slice_height;
  return s;
}

std::int64_t sell_bytes(const FormatShape& shape, std::int64_t rows, std::int64_t value_bytes) {
  return 4 * (slices_of(rows, shape.sell_slice_height) + 1) + 4 * rows + shape.sell_stored * (4 + value_bytes);
}

HostFormat build_sell(const CsrView& A, const FormatShape& shape) {
  HostFormat h;
  h.shape = shape;
  const std::int64_t height = shape.sell_slice_height;
  h.sell_rows = sell_order(A, shape.sell_sort_window);
  const std::vector<std::int64_t> widths = slice_widths(A, h.sell_rows, height);
  h.sell_slice_offsets.assign(widths.size() + 1, 0);
  for (std::size_t s = 0; s < widths.size(); ++s)
    h.sell_slice_offsets[s + 1] = h.sell_slice_offsets[s] + static_cast<std::int32_t>(widths[s] * height);
  assign_large(h.ell_cols, static_cast<std::size_t>(shape.sell_stored), -1);
  assign_large(h.ell_values, static_cast<std::size_t>(shape.sell_stored), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t r = 0; r < A.rows; ++r) {
    const std::int32_t row = h.sell_rows[r];
    std::size_t slot = static_cast<std::size_t>(h.sell_slice_offsets[r / height] + r % height);
    for (std::int64_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k, slot += height) {
      h.ell_cols[slot] = A.col_indices[k];
      h.ell_values[slot] = A.values[k];
    }
  }
  return h;
}

HostCsrMatrix csr_from_sell(const HostFormat& h, std::int32_t rows, std::int32_t cols, bool symmetric) {
  const std::int64_t height = h.shape.sell_slice_height;
  // Sorted row r's entries: from its slice's offset, one slice height apart, up to the first -1.
  auto entries = [&](std::int32_t r, auto&& visit) {
    const std::int64_t s = r / height;
    for (std::int64_t k = h.sell_slice_offsets[s] + r % height; k < h.sell_slice_offsets[s + 1]; k += height) {
      if (h.ell_cols[k] < 0) break;
      visit(static_cast<std::size_t>(k));
    }
  };
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  A.symmetric = symmetric;
  A.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int32_t r = 0; r < rows; ++r) entries(r, [&](std::size_t) { ++A.row_offsets[h.sell_rows[r] + 1]; });
  for (std::int32_t i = 0; i < rows; ++i) A.row_offsets[i + 1] += A.row_offsets[i];
  A.col_indices.resize(static_cast<std::size_t>(A.row_offsets[rows]));
  A.values.resize(A.col_indices.size());
  for (std::int32_t r = 0; r < rows; ++r) {
    std::size_t at = static_cast<std::size_t>(A.row_offsets[h.sell_rows[r]]);
    entries(r, [&](std::size_t k) {
      A.col_indices[at] = h.ell_cols[k];
      A.values[at++] = h.ell_values[k];
    });
  }
  return A;
}

}  // namespace clkr::detail
