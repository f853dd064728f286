// A sparse matrix in compressed sparse row form on the host, in double precision: what the Matrix
// Market reader and the generators produce, what the device Matrix uploads, and what host reference
// code (BLAS, solvers, tests) computes with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clkr {

struct HostCsrMatrix {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  // size rows + 1, row_offsets[0] == 0; 64-bit so that a matrix may hold more than 2^31 entries (the
  // device copy narrows them to 32 bits where they fit: src/data/matrix.cpp)
  std::vector<std::int64_t> row_offsets{0};
  std::vector<std::int32_t> col_indices;  // size nnz, sorted within each row, no duplicates
  std::vector<double> values;             // size nnz
  bool symmetric = false;                 // the source declared symmetry (storage is always full)

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_indices.size()); }
  // Whether rows i and j hold the same column indices (the unknowns of a mesh node often do).
  bool same_columns(std::int32_t i, std::int32_t j) const;

  // Throws clkr::Error naming the first violated invariant (sizes, offsets monotone, indices in range
  // and sorted, finite values).
  void validate() const;
};

}  // namespace clkr
