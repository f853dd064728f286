// CsrView: a 0-based CSR matrix held in someone else's arrays (a simulator's own, a NumPy array's),
// which a Matrix uploads without first copying them into a HostCsrMatrix: 32-bit column indices, row
// offsets of 32 or 64 bits (64 are needed past 2^31 entries). A HostCsrMatrix converts to one
// implicitly, so code that reads a CSR matrix can take either.
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

// Row offsets of either width, read as 64-bit: the caller's int32 arrays are viewed as they are (no
// copy for the common case), a HostCsrMatrix's are int64. Code that needs one width's array asks for it.
class OffsetView {
 public:
  OffsetView() = default;
  OffsetView(ArrayView<std::int32_t> narrow) : narrow_(narrow.data()), size_(narrow.size()) {}  // NOLINT: implicit
  OffsetView(ArrayView<std::int64_t> wide) : wide_(wide.data()), size_(wide.size()) {}          // NOLINT: implicit
  OffsetView(const std::vector<std::int32_t>& v) : OffsetView(ArrayView<std::int32_t>(v)) {}    // NOLINT: implicit
  OffsetView(const std::vector<std::int64_t>& v) : OffsetView(ArrayView<std::int64_t>(v)) {}    // NOLINT: implicit
  // {pointer, size}, as an ArrayView is given: CsrView(rows, cols, {offsets, rows + 1}, ...).
  OffsetView(const std::int32_t* data, std::size_t size) : narrow_(data), size_(size) {}
  OffsetView(const std::int64_t* data, std::size_t size) : wide_(data), size_(size) {}

  std::int64_t operator[](std::size_t i) const { return wide_ != nullptr ? wide_[i] : narrow_[i]; }
  std::size_t size() const { return size_; }
  // Which width the caller's array has, and that array (null for the other width).
  bool wide() const { return wide_ != nullptr; }
  const std::int32_t* narrow_data() const { return narrow_; }
  const std::int64_t* wide_data() const { return wide_; }

 private:
  const std::int32_t* narrow_ = nullptr;
  const std::int64_t* wide_ = nullptr;
  std::size_t size_ = 0;
};

struct CsrView {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  OffsetView row_offsets;               // rows + 1, row_offsets[0] == 0
  ArrayView<std::int32_t> col_indices;  // nnz, strictly increasing within each row
  ArrayView<double> values;             // nnz
  bool symmetric = false;

  CsrView() = default;
  CsrView(std::int32_t rows, std::int32_t cols, OffsetView row_offsets, ArrayView<std::int32_t> col_indices,
          ArrayView<double> values, bool symmetric = false)
      : rows(rows),
        cols(cols),
        row_offsets(row_offsets),
        col_indices(col_indices),
        values(values),
        symmetric(symmetric) {}
  CsrView(const HostCsrMatrix& A)  // NOLINT: implicit by design, a HostCsrMatrix is a CsrView's arrays
      : CsrView(A.rows, A.cols, A.row_offsets, A.col_indices, A.values, A.symmetric) {}

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_indices.size()); }
  std::int64_t row_length(std::int32_t i) const { return row_offsets[i + 1] - row_offsets[i]; }

  // Throws clkr::Error naming the first violated invariant, with the messages of csr_from_arrays:
  // array sizes, offsets from 0 and not decreasing, columns in range and strictly increasing in each
  // row, finite values (the row and column named).
  void validate() const;
  // The arrays copied into a HostCsrMatrix.
  HostCsrMatrix to_host() const;
};

}  // namespace clkr
