// HostCsrMatrix::validate, the invariants every producer of a host CSR matrix must keep, and the
// comparison of two rows' columns.
#include "clkr/data/host_csr_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "clkr/runtime/error.hpp"
#include "first_rejected_row.hpp"

namespace clkr {

bool HostCsrMatrix::same_columns(std::int32_t i, std::int32_t j) const {
  const std::int64_t a = row_offsets[i], b = row_offsets[j], length = row_offsets[i + 1] - a;
  return row_offsets[j + 1] - b == length &&
         std::equal(col_indices.begin() + a, col_indices.begin() + a + length, col_indices.begin() + b);
}

void HostCsrMatrix::validate() const {
  auto fail = [](const std::string& what) { throw Error("invalid HostCsrMatrix: " + what); };
  const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
  if (rows < 0 || cols < 0) fail("negative size " + shape);
  if (symmetric && rows != cols) fail("declared symmetric but not square (" + shape + ")");
  if (row_offsets.size() != static_cast<std::size_t>(rows) + 1)
    fail("row_offsets has " + std::to_string(row_offsets.size()) +
         " entries, expected rows + 1 = " + std::to_string(static_cast<std::int64_t>(rows) + 1));
  if (row_offsets[0] != 0) fail("row_offsets[0] is " + std::to_string(row_offsets[0]) + ", expected 0");
  if (values.size() != col_indices.size())
    fail("values has " + std::to_string(values.size()) + " entries but col_indices has " +
         std::to_string(col_indices.size()));
  if (row_offsets[rows] != nnz())
    fail("row_offsets[rows] is " + std::to_string(row_offsets[rows]) + " but there are " + std::to_string(nnz()) +
         " column indices");
  // Offsets first, in a pass of their own, so that the entry pass below never indexes past the end.
  const std::int64_t decreasing =
      detail::first_rejected_row(rows, [&](std::int64_t r) { return row_offsets[r + 1] < row_offsets[r]; });
  if (decreasing < rows)
    fail("row_offsets decreases at row " + std::to_string(decreasing) + " (" + std::to_string(row_offsets[decreasing]) +
         " then " + std::to_string(row_offsets[decreasing + 1]) + ")");
  // Row r's first defect, if any (rows are checked in parallel, the first defective one reported).
  const auto defect = [&](std::int64_t r) -> std::optional<std::string> {
    for (std::int64_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k) {
      const std::int32_t c = col_indices[k];
      if (c < 0 || c >= cols)
        return "column index " + std::to_string(c) + " in row " + std::to_string(r) + " out of range [0, " +
               std::to_string(cols) + ")";
      if (k > row_offsets[r] && c <= col_indices[k - 1])
        return "column indices of row " + std::to_string(r) + " not strictly increasing (" +
               std::to_string(col_indices[k - 1]) + " then " + std::to_string(c) + ")";
      if (!std::isfinite(values[k]))
        return "non-finite value at (" + std::to_string(r) + ", " + std::to_string(c) + ")";
    }
    return std::nullopt;
  };
  const std::int64_t bad = detail::first_rejected_row(rows, [&](std::int64_t r) { return defect(r).has_value(); });
  if (bad < rows) fail(*defect(bad));
}

}  // namespace clkr
