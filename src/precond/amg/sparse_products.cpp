// Row-wise (Gustavson) sparse products with a dense accumulator per thread. The symbolic-and-numeric
// versions build each thread's rows in its own arrays (one pass over the products, not two), then
// concatenate; the numeric refreshes scatter into the known pattern through a column -> position map.
#include "sparse_products.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <utility>

#include "../../runtime/host_threads.hpp"
#include "../../runtime/large_vectors.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {
namespace {

// Rows [begin, end) of a product, built by one thread.
struct RowBlock {
  std::vector<std::int32_t> lengths, cols;
  std::vector<double> values;
};

// The accumulator of one output row: a dense array of sums over all columns, the columns touched in
// this row (in order of first touch), and for each column the row that last touched it (so nothing is
// reset between rows). Appending sorts the touched columns: an insertion sort for the short rows of
// A P (about a dozen entries), std::sort for the longer coarse rows.
class RowAccumulator {
 public:
  explicit RowAccumulator(std::int32_t cols)
      : sums_(static_cast<std::size_t>(cols), 0.0), owner_(static_cast<std::size_t>(cols), -1) {
    touched_.reserve(256);
  }
  void start(std::int32_t row) { row_ = row; }
  void add(std::int32_t col, double value) {
    if (owner_[col] != row_) {
      owner_[col] = row_;
      sums_[col] = value;
      touched_.push_back(col);
    } else {
      sums_[col] += value;
    }
  }
  // Appends the row, columns ascending, to `block`.
  void flush(RowBlock& block) {
    std::int32_t* cols = touched_.data();
    const std::size_t n = touched_.size();
    if (n > 16) {
      std::sort(touched_.begin(), touched_.end());
    } else {
      for (std::size_t i = 1; i < n; ++i) {
        const std::int32_t c = cols[i];
        std::size_t j = i;
        for (; j > 0 && cols[j - 1] > c; --j) cols[j] = cols[j - 1];
        cols[j] = c;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      block.cols.push_back(cols[i]);
      block.values.push_back(sums_[cols[i]]);
    }
    block.lengths.push_back(static_cast<std::int32_t>(n));
    touched_.clear();
  }

 private:
  std::vector<double> sums_;
  std::vector<std::int32_t> owner_, touched_;
  std::int32_t row_ = -1;
};

// Runs row(i, accumulator) for every output row and assembles the CSR result. Rows go in contiguous
// blocks, several per thread, handed out dynamically (coarse rows differ in cost).
template <class RowFn>
HostCsrMatrix build_rows(std::int32_t rows, std::int32_t cols, const RowFn& row) {
  const int count = std::max(1, std::min<int>(rows, 8 * host_thread_count()));
  std::vector<RowBlock> blocks(static_cast<std::size_t>(count));
  std::vector<std::int32_t> first(static_cast<std::size_t>(count) + 1, 0);
  for (int t = 0; t <= count; ++t) first[t] = static_cast<std::int32_t>(static_cast<std::int64_t>(rows) * t / count);
#pragma omp parallel
  {
    RowAccumulator acc(cols);
#pragma omp for schedule(dynamic)
    for (int t = 0; t < count; ++t) {
      RowBlock& block = blocks[t];
      // About the input's density: a guess that saves most regrowth of the arrays.
      reserve_large(block.cols, static_cast<std::size_t>(first[t + 1] - first[t]) * 16);
      reserve_large(block.values, block.cols.capacity());
      for (std::int32_t i = first[t]; i < first[t + 1]; ++i) {
        acc.start(i);
        row(i, acc);
        acc.flush(block);
      }
    }
  }
  const int threads = count;
  HostCsrMatrix C;
  C.rows = rows;
  C.cols = cols;
  assign_large(C.row_offsets, static_cast<std::size_t>(rows) + 1, std::int64_t{0});
  std::vector<std::int64_t> block_start(static_cast<std::size_t>(threads) + 1, 0);
  for (int t = 0; t < threads; ++t)
    block_start[t + 1] = block_start[t] + static_cast<std::int64_t>(blocks[t].cols.size());
  if (block_start[threads] > INT32_MAX) throw Error("amg: a product has more than 2^31 nonzeros");
  for (int t = 0; t < threads; ++t) {
    std::int64_t offset = block_start[t];
    for (std::size_t r = 0; r < blocks[t].lengths.size(); ++r) {
      offset += blocks[t].lengths[r];
      C.row_offsets[first[t] + static_cast<std::int32_t>(r) + 1] = static_cast<std::int32_t>(offset);
    }
  }
  resize_large(C.col_indices, static_cast<std::size_t>(block_start[threads]));
  resize_large(C.values, C.col_indices.size());
#pragma omp parallel for
  for (int t = 0; t < threads; ++t) {
    std::copy(blocks[t].cols.begin(), blocks[t].cols.end(), C.col_indices.begin() + block_start[t]);
    std::copy(blocks[t].values.begin(), blocks[t].values.end(), C.values.begin() + block_start[t]);
  }
  return C;
}

// Recomputes C's values: row(i, add) calls add(col, value) for every product term of row i. A column
// outside row i's pattern (only possible if the caller broke the same-pattern promise) is ignored.
template <class RowFn>
void refresh_rows(HostCsrMatrix& C, const RowFn& row) {
#pragma omp parallel
  {
    std::vector<std::int32_t> position(static_cast<std::size_t>(C.cols), -1);
#pragma omp for schedule(static)
    for (std::int32_t i = 0; i < C.rows; ++i) {
      const std::int32_t begin = C.row_offsets[i], end = C.row_offsets[i + 1];
      for (std::int32_t k = begin; k < end; ++k) {
        position[C.col_indices[k]] = k;
        C.values[k] = 0;
      }
      double* values = C.values.data();
      row(i, [&](std::int32_t col, double value) {
        const std::int32_t k = position[col];
        if (k >= 0) values[k] += value;
      });
      for (std::int32_t k = begin; k < end; ++k) position[C.col_indices[k]] = -1;
    }
  }
}

}  // namespace

// In two passes over blocks of rows, one per thread: each block counts its entries per column, the
// counts give every block its slots in each row of A^T, and each block scatters into its slots. Blocks
// are in row order, so every row of A^T receives its columns ascending.
Transpose transpose(const HostCsrMatrix& A) {
  Transpose t;
  HostCsrMatrix& At = t.matrix;
  At.rows = A.cols;
  At.cols = A.rows;
  // A block per 16 k entries (a thread each, at most): by rows (one per 4096), P's 5-11 k rows made
  // two or three blocks on the H200 host's 16 cores, and the phase took 0.7-1.4 ms on 1 thread and on
  // 16 alike (2026-12-02), most of it the first touch of A^T's fresh arrays. Each block's counts take
  // A.cols ints, and the prefix over them A.cols x blocks steps: small for P's few coarse columns.
  const int blocks = std::max(1, std::min<int>(host_thread_count(), static_cast<int>(A.nnz() / 16384) + 1));
  const auto first = [&](int b) { return static_cast<std::int32_t>(static_cast<std::int64_t>(A.rows) * b / blocks); };
  std::vector<std::vector<std::int32_t>> slot(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    slot[b].assign(static_cast<std::size_t>(A.cols), 0);
    for (std::int64_t k = A.row_offsets[first(b)]; k < A.row_offsets[first(b + 1)]; ++k) ++slot[b][A.col_indices[k]];
  }
  assign_large(At.row_offsets, static_cast<std::size_t>(A.cols) + 1, std::int64_t{0});
  std::int64_t next = 0;
  for (std::int32_t c = 0; c < A.cols; ++c) {
    for (int b = 0; b < blocks; ++b) {
      const std::int32_t count = slot[b][c];
      slot[b][c] = static_cast<std::int32_t>(next);
      next += count;
    }
    At.row_offsets[c + 1] = static_cast<std::int32_t>(next);
  }
  resize_large(At.col_indices, A.col_indices.size());
  resize_large(At.values, A.values.size());
  resize_large(t.position, A.values.size());
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    std::vector<std::int32_t>& s = slot[b];
    for (std::int32_t i = first(b); i < first(b + 1); ++i) {
      for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
        const std::int32_t at = s[A.col_indices[k]]++;
        At.col_indices[at] = i;
        At.values[at] = A.values[k];
        t.position[k] = at;
      }
    }
  }
  return t;
}

void transpose_values(const HostCsrMatrix& A, Transpose& At) {
  double* values = At.matrix.values.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(A.values.size()); ++k) values[At.position[k]] = A.values[k];
}

namespace {

// The terms of row i of A B.
template <class Add>
void product_row(const HostCsrMatrix& A, const HostCsrMatrix& B, std::int32_t i, const Add& add) {
  const std::int64_t* b_offsets = B.row_offsets.data();
  const std::int32_t* b_cols = B.col_indices.data();
  const double* b_values = B.values.data();
  for (std::int64_t ka = A.row_offsets[i]; ka < A.row_offsets[i + 1]; ++ka) {
    const std::int32_t j = A.col_indices[ka];
    const double a = A.values[ka];
    const std::int32_t end = b_offsets[j + 1];
    for (std::int32_t kb = b_offsets[j]; kb < end; ++kb) add(b_cols[kb], a * b_values[kb]);
  }
}

}  // namespace

HostCsrMatrix multiply(const HostCsrMatrix& A, const HostCsrMatrix& B) {
  return build_rows(A.rows, B.cols, [&](std::int32_t i, RowAccumulator& acc) {
    product_row(A, B, i, [&](std::int32_t col, double v) { acc.add(col, v); });
  });
}

void multiply_values(const HostCsrMatrix& A, const HostCsrMatrix& B, HostCsrMatrix& C) {
  refresh_rows(C, [&](std::int32_t i, const auto& add) { product_row(A, B, i, add); });
}

TripleProduct triple_product(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P) {
  TripleProduct t;
  t.AP = multiply(A, P);
  t.RAP = multiply(R, t.AP);
  return t;
}

void triple_product_values(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P, TripleProduct& C) {
  multiply_values(A, P, C.AP);
  multiply_values(R, C.AP, C.RAP);
}

}  // namespace clkr::detail::amg
