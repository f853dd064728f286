// clkr::LocalRows: the rows of a distributed matrix one rank owns, in CSR with global column indices,
// as a simulator that already distributes its mesh holds them.
#pragma once

#include <cstdint>
#include <vector>

namespace clkr {

struct LocalRows {
  std::int64_t global_rows = 0;              // the matrix is global_rows x global_rows (the solvers need it square)
  std::int64_t first_row = 0;                // the global index of this rank's first row
  std::vector<std::int64_t> row_offsets{0};  // rows() + 1 entries, row_offsets[0] == 0, non-decreasing
  std::vector<std::int64_t> col_indices;     // global, 0 <= column < global_rows; any order, no duplicates
  std::vector<double> values;                // finite

  std::int64_t rows() const { return static_cast<std::int64_t>(row_offsets.size()) - 1; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_indices.size()); }

  // Throws clkr::Error naming the first broken invariant with the global row and the entry (a column
  // outside the matrix, a NaN value, offsets that decrease). Duplicate columns are found by DistMatrix.
  void validate() const;
};

}  // namespace clkr
