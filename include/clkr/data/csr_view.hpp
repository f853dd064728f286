// CsrView: a 0-based CSR matrix with 32-bit indices held in someone else's arrays (a simulator's own,
// a NumPy array's), which a Matrix uploads without first copying them into a HostCsrMatrix. A
// HostCsrMatrix converts to one implicitly, so code that reads a CSR matrix can take either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr {

// A read-only array someone else owns: what std::span<const T> is in C++20.
template <class T>
class ArrayView {
 public:
  ArrayView() = default;
  ArrayView(const T* data, std::size_t size) : data_(data), size_(size) {}
  ArrayView(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit by design

  const T& operator[](std::size_t i) const { return data_[i]; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

struct CsrView {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  ArrayView<std::int32_t> row_offsets;  // rows + 1, row_offsets[0] == 0
  ArrayView<std::int32_t> col_indices;  // nnz, strictly increasing within each row
  ArrayView<double> values;             // nnz
  bool symmetric = false;

  CsrView() = default;
  CsrView(std::int32_t rows, std::int32_t cols, ArrayView<std::int32_t> row_offsets,
          ArrayView<std::int32_t> col_indices, ArrayView<double> values, bool symmetric = false)
      : rows(rows),
        cols(cols),
        row_offsets(row_offsets),
        col_indices(col_indices),
        values(values),
        symmetric(symmetric) {}
  CsrView(const HostCsrMatrix& A)  // NOLINT: implicit by design, a HostCsrMatrix is a CsrView's arrays
      : CsrView(A.rows, A.cols, A.row_offsets, A.col_indices, A.values, A.symmetric) {}

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_indices.size()); }

  // Throws clkr::Error naming the first violated invariant, with the messages of csr_from_arrays:
  // array sizes, offsets from 0 and not decreasing, columns in range and strictly increasing in each
  // row, finite values (the row and column named).
  void validate() const;
  // The arrays copied into a HostCsrMatrix.
  HostCsrMatrix to_host() const;
};

}  // namespace clkr
