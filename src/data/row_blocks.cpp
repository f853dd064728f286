// Row blocks of the load-balanced CSR kernels: greedy cuts over the row lengths (see the header).
#include "row_blocks.hpp"

#include <algorithm>

#include "clkr/runtime/error.hpp"

namespace clkr::detail {

std::vector<std::int32_t> row_blocks(const std::vector<std::int64_t>& row_offsets, const Matrix::RowBlockShape& shape) {
  if (shape.max_cost < 1) throw Error("row blocks: max_cost must be at least 1, got " + std::to_string(shape.max_cost));
  if (shape.max_rows < 0) throw Error("row blocks: max_rows must be >= 0, got " + std::to_string(shape.max_rows));
  const auto rows = static_cast<std::int32_t>(row_offsets.size()) - 1;
  std::vector<std::int32_t> first_rows{0};
  std::int64_t rows_in = 0, cost = 0, longest = 0;  // of the block being filled
  auto close = [&](std::int32_t next_row) {
    first_rows.push_back(next_row);
    rows_in = cost = longest = 0;
  };
  const bool per_group = shape.max_rows > 0;
  for (std::int32_t i = 0; i < rows; ++i) {
    const std::int64_t length = row_offsets[i + 1] - row_offsets[i];
    const std::int64_t row_cost = per_group ? length : length + 1;
    if (rows_in > 0) {
      const bool full = cost + row_cost > shape.max_cost ||
                        (per_group && (rows_in + 1 > shape.max_rows ||
                                       (rows_in + 1) * std::max(longest, length) > 2 * shape.max_cost));
      if (full) close(i);
    }
    ++rows_in;
    cost += row_cost;
    longest = std::max(longest, length);
    // A long row alone: the work-group walks it, and the next rows start a block of their own.
    if (per_group && rows_in == 1 && length > shape.max_cost) close(i + 1);
  }
  if (rows_in > 0) close(rows);
  return first_rows;
}

}  // namespace clkr::detail
