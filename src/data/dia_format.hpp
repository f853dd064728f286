// Internal to src/data: the host side of DIA (Format::Dia). Each diagonal (a column - row offset) that
// holds an entry is stored whole, column-major: diagonal d's slot in row i at d * pitch + i, pitch the
// rows rounded up to 32, a slot whose column lies outside the matrix or holds no entry storing 0. A
// work-item per row then reads its values coalesced and x at row + offset, with no column index at
// all. Which slots hold entries of the matrix (an explicit zero is an entry, padding is not) is kept as
// one bit per slot, `present`, which the SpMV never reads: to_host, update_values and the AMG setup's
// CSR copy (kernels/precond/csr_view.cl) need the exact pattern.
#pragma once

#include <cstdint>
#include <vector>

#include "matrix_formats.hpp"

namespace clkr::detail {

// The distinct diagonals holding A's entries, ascending, looked for until more than `limit` are found.
// A's row k is row row_ids[k] when row_ids is not empty (the statistics of a file's nonempty rows).
struct Diagonals {
  std::vector<std::int32_t> offsets;  // ascending; when `more`, the first limit + 1 found
  bool more = false;                  // A has more than `limit`: the search stopped there
};
Diagonals find_diagonals(const CsrView& A, std::int64_t limit, ArrayView<std::int32_t> row_ids = {});

// The shape with A's diagonals, looked for up to max_diagonals (MatrixOptions::max_dia_diagonals;
// past it dia_more is set, and format_checks refuses the format). all_rows and row_ids as for
// find_diagonals and sell_shape (-1: A.rows).
FormatShape dia_shape(const CsrView& A, std::int64_t max_diagonals, ArrayView<std::int32_t> row_ids = {},
                      std::int64_t all_rows = -1);

// The slots whose column lies in a rows x cols matrix: the ones the kernels read.
std::int64_t dia_inside(const FormatShape& shape, std::int64_t rows, std::int64_t cols);

// The presence bits' words (32 slots each: the pitch is a multiple of 32).
std::int64_t dia_present_words(const FormatShape& shape);

// Device bytes: the offsets, the presence bits and the values with `value_bytes` per value.
std::int64_t dia_bytes(const FormatShape& shape, std::int64_t value_bytes);

// The values (in h.ell_values) and the presence bits (h.dia_present).
HostFormat build_dia(const CsrView& A, const FormatShape& shape);

// The matrix back in CSR: the slots whose bit is set, in ascending column order.
HostCsrMatrix csr_from_dia(const HostFormat& h, std::int32_t rows, std::int32_t cols, bool symmetric);

}  // namespace clkr::detail
