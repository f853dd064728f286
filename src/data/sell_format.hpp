// Internal to src/data: the host side of SELL-C-sigma (Format::Sell; Kreutzer et al., SIAM J. Sci.
// Comput. 36(5), 2014): the rows sorted by length, longest first, within windows of sigma consecutive
// rows, then cut into slices of C sorted rows, each slice stored column-major at the width of its
// longest row (entry j of the slice's row i at slice_offset + j*C + i; padding column -1, value 0).
// Sorting within windows keeps a slice's rows about equally long (little padding) while a row never
// moves further than sigma - 1 places, so the rows' accesses to y and x stay local. The kernels keep
// the vectors in the user's order: the sorted row r writes y[sell_rows[r]].
#pragma once

#include <cstdint>
#include <vector>

#include "matrix_formats.hpp"

namespace clkr::detail {

// The original row of each sorted row: each window of `sort_window` rows (the last one shorter) sorted
// by row length, longest first, ties in their original order.
std::vector<std::int32_t> sell_order(const CsrView& A, std::int64_t sort_window);

// The shape (slice height, window, padded entries); throws clkr::Error for a slice height or window
// below 1.
FormatShape sell_shape(const CsrView& A, const SellLayout& layout);

// The same shape for a matrix of `all_rows` rows of which A lists only some: A's row k is row
// row_ids[k] (increasing), every other row is empty (the statistics of a file's nonempty rows). Exactly
// sell_shape of the whole matrix, with nothing done per empty row.
FormatShape sell_shape(const CsrView& A, const SellLayout& layout, ArrayView<std::int32_t> row_ids,
                       std::int64_t all_rows);

// Device bytes: slice offsets, the row order, and the padded entries with `value_bytes` per value.
std::int64_t sell_bytes(const FormatShape& shape, std::int64_t rows, std::int64_t value_bytes);

// The slices (in h.ell_cols, h.ell_values), their offsets and the row order.
HostFormat build_sell(const CsrView& A, const FormatShape& shape);

// The matrix back in CSR, in the original row order.
HostCsrMatrix csr_from_sell(const HostFormat& h, std::int32_t rows, std::int32_t cols, bool symmetric);

}  // namespace clkr::detail
