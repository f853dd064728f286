// HostCsrMatrix::validate: the invariants every producer of a host CSR matrix must keep.
#include "clkr/data/host_csr_matrix.hpp"

#include <cmath>
#include <string>

#include "clkr/runtime/error.hpp"

namespace clkr {

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
  for (std::int32_t r = 0; r < rows; ++r)
    if (row_offsets[r + 1] < row_offsets[r])
      fail("row_offsets decreases at row " + std::to_string(r) + " (" + std::to_string(row_offsets[r]) + " then " +
           std::to_string(row_offsets[r + 1]) + ")");
  for (std::int32_t r = 0; r < rows; ++r) {
    for (std::int64_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k) {
      const std::int32_t c = col_indices[k];
      if (c < 0 || c >= cols)
        fail("column index " + std::to_string(c) + " in row " + std::to_string(r) + " out of range [0, " +
             std::to_string(cols) + ")");
      if (k > row_offsets[r] && c <= col_indices[k - 1])
        fail("column indices of row " + std::to_string(r) + " not strictly increasing (" +
             std::to_string(col_indices[k - 1]) + " then " + std::to_string(c) + ")");
      if (!std::isfinite(values[k])) fail("non-finite value at (" + std::to_string(r) + ", " + std::to_string(c) + ")");
    }
  }
}

}  // namespace clkr
