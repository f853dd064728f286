// Row-wise (Gustavson) sparse products with a dense accumulator per thread. The symbolic-and-numeric
// versions build each thread's rows in its own arrays (one pass over the products, not two), then
// concatenate; the numeric refreshes scatter into the known pattern through a column -> position map.
#include "sparse_products.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <utility>

#include "clkr/runtime/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace clkr::detail::amg {
namespace {

int thread_count() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Rows [begin, end) of a product, built by one thread.
struct RowBlock {
  std::vector<std::int32_t> lengths, cols;
  std::vector<double> values;
};

// The accumulator of one output row: the columns touched (in order of first touch) and their sums,
// with `slot[col]` the index into them (-1: not touched yet).
class RowAccumulator {
 public:
  explicit RowAccumulator(std::int32_t cols) : slot_(static_cast<std::size_t>(cols), -1) {}
  void add(std::int32_t col, double value) {
    std::int32_t& s = slot_[col];
    if (s < 0) {
      s = static_cast<std::int32_t>(cols_.size());
      cols_.push_back(col);
      sums_.push_back(value);
    } else {
      sums_[s] += value;
    }
  }
  // Appends the row, columns ascending, to `block`, and resets.
  void flush(RowBlock& block) {
    order_.resize(cols_.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), [&](std::int32_t a, std::int32_t b) { return cols_[a] < cols_[b]; });
    for (std::int32_t k : order_) {
      block.cols.push_back(cols_[k]);
      block.values.push_back(sums_[k]);
      slot_[cols_[k]] = -1;
    }
    block.lengths.push_back(static_cast<std::int32_t>(cols_.size()));
    cols_.clear();
    sums_.clear();
  }

 private:
  std::vector<std::int32_t> slot_, cols_, order_;
  std::vector<double> sums_;
};

// Runs row(i, accumulator) for every output row and assembles the CSR result. Rows go in contiguous
// blocks, several per thread, handed out dynamically (coarse rows differ in cost).
template <class RowFn>
HostCsrMatrix build_rows(std::int32_t rows, std::int32_t cols, const RowFn& row) {
  const int count = std::max(1, std::min<int>(rows, 8 * thread_count()));
  std::vector<RowBlock> blocks(static_cast<std::size_t>(count));
  std::vector<std::int32_t> first(static_cast<std::size_t>(count) + 1, 0);
  for (int t = 0; t <= count; ++t) first[t] = static_cast<std::int32_t>(static_cast<std::int64_t>(rows) * t / count);
#pragma omp parallel
  {
    RowAccumulator acc(cols);
#pragma omp for schedule(dynamic)
    for (int t = 0; t < count; ++t) {
      for (std::int32_t i = first[t]; i < first[t + 1]; ++i) {
        row(i, acc);
        acc.flush(blocks[t]);
      }
    }
  }
  const int threads = count;
  HostCsrMatrix C;
  C.rows = rows;
  C.cols = cols;
  C.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
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
  C.col_indices.resize(static_cast<std::size_t>(block_start[threads]));
  C.values.resize(C.col_indices.size());
#pragma omp parallel for
  for (int t = 0; t < threads; ++t) {
    std::copy(blocks[t].cols.begin(), blocks[t].cols.end(), C.col_indices.begin() + block_start[t]);
    std::copy(blocks[t].values.begin(), blocks[t].values.end(), C.values.begin() + block_start[t]);
  }
  return C;
}

// Recomputes C's values: row(i, add) calls add(col, value) for every product term of row i.
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
        if (k >= begin && k < end && C.col_indices[k] == col) values[k] += value;
      });
      for (std::int32_t k = begin; k < end; ++k) position[C.col_indices[k]] = -1;
    }
  }
}

}  // namespace

Transpose transpose(const HostCsrMatrix& A) {
  Transpose t;
  HostCsrMatrix& At = t.matrix;
  At.rows = A.cols;
  At.cols = A.rows;
  At.row_offsets.assign(static_cast<std::size_t>(A.cols) + 1, 0);
  for (std::int32_t c : A.col_indices) ++At.row_offsets[c + 1];
  for (std::int32_t j = 0; j < A.cols; ++j) At.row_offsets[j + 1] += At.row_offsets[j];
  At.col_indices.resize(A.col_indices.size());
  At.values.resize(A.values.size());
  t.position.resize(A.values.size());
  std::vector<std::int32_t> next(At.row_offsets.begin(), At.row_offsets.end() - 1);
  // Rows of A in order: each row of At receives its columns ascending.
  for (std::int32_t i = 0; i < A.rows; ++i) {
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t slot = next[A.col_indices[k]]++;
      At.col_indices[slot] = i;
      At.values[slot] = A.values[k];
      t.position[k] = slot;
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
  for (std::int32_t ka = A.row_offsets[i]; ka < A.row_offsets[i + 1]; ++ka) {
    const std::int32_t j = A.col_indices[ka];
    const double a = A.values[ka];
    for (std::int32_t kb = B.row_offsets[j]; kb < B.row_offsets[j + 1]; ++kb) add(B.col_indices[kb], a * B.values[kb]);
  }
}

// The terms of row I of R A P.
template <class Add>
void triple_row(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P, std::int32_t I,
                const Add& add) {
  for (std::int32_t kr = R.row_offsets[I]; kr < R.row_offsets[I + 1]; ++kr) {
    const std::int32_t k = R.col_indices[kr];
    const double r = R.values[kr];
    for (std::int32_t ka = A.row_offsets[k]; ka < A.row_offsets[k + 1]; ++ka) {
      const std::int32_t j = A.col_indices[ka];
      const double ra = r * A.values[ka];
      for (std::int32_t kp = P.row_offsets[j]; kp < P.row_offsets[j + 1]; ++kp)
        add(P.col_indices[kp], ra * P.values[kp]);
    }
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

HostCsrMatrix triple_product(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P) {
  return build_rows(R.rows, P.cols, [&](std::int32_t I, RowAccumulator& acc) {
    triple_row(R, A, P, I, [&](std::int32_t col, double v) { acc.add(col, v); });
  });
}

void triple_product_values(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P, HostCsrMatrix& C) {
  refresh_rows(C, [&](std::int32_t I, const auto& add) { triple_row(R, A, P, I, add); });
}

}  // namespace clkr::detail::amg
