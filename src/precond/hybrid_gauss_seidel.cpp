#include "hybrid_gauss_seidel.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "../blas/host_row_dot.hpp"
#include "clkr/runtime/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace clkr::detail {
namespace {

std::vector<std::int32_t> nodes_or_single_rows(std::vector<std::int32_t> offsets, std::int32_t rows) {
  if (offsets.size() > 1) return offsets;
  std::vector<std::int32_t> single(static_cast<std::size_t>(rows) + 1);
  for (std::int32_t i = 0; i <= rows; ++i) single[i] = i;
  return single;
}

// Range c holds the nodes cut[c] .. cut[c + 1] - 1: as many nodes each as an even cut gives.
std::vector<std::int32_t> cut_nodes(const std::vector<std::int32_t>& nodes, int ranges) {
  const auto count = static_cast<std::int64_t>(nodes.size()) - 1;
  const int r = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(ranges, count)));
  std::vector<std::int32_t> cut(static_cast<std::size_t>(r) + 1);
  for (int c = 0; c <= r; ++c) cut[c] = static_cast<std::int32_t>(count * c / r);
  return cut;
}

// The residuals b_i - sum_k a_ik x_k of M rows s .. s + M - 1 that share their columns, over the
// entries first .. end - 1 of each row (counted from the row's start): host_row_dot.hpp's run sums.
template <int M>
[[gnu::always_inline]] inline void shared_residuals(const std::int64_t* offsets, const std::int32_t* cols,
                                                    const double* vals, const double* x, const double* b,
                                                    std::int32_t s, std::int64_t first, std::int64_t end, double* out) {
  run_entries_dot<M>(offsets, cols, vals, x, s, first, end, out);
  for (int j = 0; j < M; ++j) out[j] = b[s + j] - out[j];
}

// shared_residuals for the node sizes of meshes (1-6 unknowns a point); false for others.
bool shared_residuals(int m, const std::int64_t* offsets, const std::int32_t* cols, const double* vals, const double* x,
                      const double* b, std::int32_t s, std::int64_t first, std::int64_t end, double* out) {
  switch (m) {
    case 2:
      shared_residuals<2>(offsets, cols, vals, x, b, s, first, end, out);
      return true;
    case 3:
      shared_residuals<3>(offsets, cols, vals, x, b, s, first, end, out);
      return true;
    case 4:
      shared_residuals<4>(offsets, cols, vals, x, b, s, first, end, out);
      return true;
    case 5:
      shared_residuals<5>(offsets, cols, vals, x, b, s, first, end, out);
      return true;
    case 6:
      shared_residuals<6>(offsets, cols, vals, x, b, s, first, end, out);
      return true;
    default:
      return false;
  }
}

}  // namespace

HybridGaussSeidel::HybridGaussSeidel(Blas& blas, const HostCsrMatrix& A, std::vector<std::int32_t> node_offsets,
                                     int ranges, int level)
    : blas_(blas),
      level_(level),
      nodes_(nodes_or_single_rows(std::move(node_offsets), A.rows)),
      range_nodes_(cut_nodes(nodes_, ranges)),
      ranges_(static_cast<int>(range_nodes_.size()) - 1),
      largest_node_(0),
      own_entry_(static_cast<std::size_t>(A.rows)),
      blocks_(A, nodes_, level, NodeBlockExtras{l1_terms(A), false}),
      start_(static_cast<std::size_t>(A.rows)) {
  shared_.assign(nodes_.size() - 1, 0);
  for (std::size_t k = 0; k + 1 < nodes_.size(); ++k) {
    const std::int32_t s = nodes_[k], e = nodes_[k + 1];
    largest_node_ = std::max(largest_node_, e - s);
    bool shared = e - s > 1;
    for (std::int32_t i = s + 1; i < e && shared; ++i) shared = A.same_columns(i, s);
    shared_[k] = shared;
    for (std::int32_t i = s; i < e; ++i) {
      const std::int32_t* first = A.col_indices.data() + A.row_offsets[i];
      const std::int32_t* last = A.col_indices.data() + A.row_offsets[i + 1];
      own_entry_[i] = A.row_offsets[i] + (std::lower_bound(first, last, s) - first);
    }
  }
}

std::vector<double> HybridGaussSeidel::l1_terms(const HostCsrMatrix& A) const {
  if (A.rows != A.cols || nodes_.back() != A.rows)
    throw Error("gauss-seidel: level " + std::to_string(level_) + "'s operator is " + std::to_string(A.rows) + " x " +
                std::to_string(A.cols) + " with nodes over " + std::to_string(nodes_.back()) + " rows");
  std::vector<double> l1(static_cast<std::size_t>(A.rows), 0.0);
  for (std::size_t c = 0; c + 1 < range_nodes_.size(); ++c) {
    const std::int32_t lo = nodes_[range_nodes_[c]], hi = nodes_[range_nodes_[c + 1]];
    for (std::int32_t i = lo; i < hi; ++i)
      for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
        if (A.col_indices[k] < lo || A.col_indices[k] >= hi) l1[i] += std::abs(A.values[k]);
  }
  return l1;
}

void HybridGaussSeidel::refresh(const HostCsrMatrix& A) { blocks_.refresh(A, l1_terms(A)); }

// Node by node: each row's residual b_i - sum_j a_ij x_j, with the range's own x read from x (new values
// for the nodes before in the sweep's direction, old ones for the rest) and the other ranges' from the
// sweep's start (a row whose ascending columns all lie in its range reads x alone), then the node's x
// corrected by its inverse block. From x = 0 only the range's entries left of the node count.
void HybridGaussSeidel::sweep(const HostCsrMatrix& A, const double* b, double* x, bool forward, bool x_is_zero) {
  const std::int64_t* offsets = A.row_offsets.data();
  const std::int32_t* cols = A.col_indices.data();
  const double* vals = A.values.data();
  const std::int32_t* nodes = nodes_.data();
  const std::int64_t* own = own_entry_.data();
  const char* shared = shared_.data();
  const HostCsrMatrix& inverse = blocks_.matrix();
  double* start = start_.data();
  const int ranges = ranges_;
#pragma omp parallel if (ranges > 1)
  {
#ifdef _OPENMP
    const int thread = omp_get_thread_num(), threads = omp_get_num_threads();
#else
    const int thread = 0, threads = 1;
#endif
    if (!x_is_zero && ranges > 1) {  // one range reads x alone: no start to keep
      for (int c = thread; c < ranges; c += threads)
        std::copy(x + nodes[range_nodes_[c]], x + nodes[range_nodes_[c + 1]], start + nodes[range_nodes_[c]]);
#pragma omp barrier
    }
    std::vector<double> r(static_cast<std::size_t>(largest_node_));
    for (int c = thread; c < ranges; c += threads) {
      const std::int32_t first_node = range_nodes_[c], end_node = range_nodes_[c + 1];
      const std::int32_t lo = nodes[first_node], hi = nodes[end_node];
      auto residual = [&](std::int32_t i) {
        const std::int64_t k0 = offsets[i], k1 = offsets[i + 1];
        if (x_is_zero) {
          std::int64_t k = k0;
          while (cols[k] < lo) ++k;  // the other ranges' x is zero (the node's own first column stops it)
          return b[i] - entries_dot(k, own[i], cols, vals, x);
        }
        if (cols[k0] >= lo && cols[k1 - 1] < hi) return b[i] - entries_dot(k0, k1, cols, vals, x);
        double sum = 0;
        for (std::int64_t k = k0; k < k1; ++k) {
          const std::int32_t j = cols[k];
          sum += vals[k] * (j >= lo && j < hi ? x[j] : start[j]);
        }
        return b[i] - sum;
      };
      // A node whose rows share their columns reads them once, unless some of them lie in other ranges
      // (then its rows take the general path).
      auto shared_node = [&](std::int32_t s, std::int32_t m) {
        const std::int64_t k0 = offsets[s], length = offsets[s + 1] - k0;
        if (x_is_zero) {
          std::int64_t first = 0;
          while (cols[k0 + first] < lo) ++first;
          return shared_residuals(m, offsets, cols, vals, x, b, s, first, own[s] - k0, r.data());
        }
        return cols[k0] >= lo && cols[k0 + length - 1] < hi &&
               shared_residuals(m, offsets, cols, vals, x, b, s, 0, length, r.data());
      };
      auto node = [&](std::int32_t n) {
        const std::int32_t s = nodes[n], m = nodes[n + 1] - s;
        const double* inv = inverse.values.data() + inverse.row_offsets[s];
        if (m == 1) {
          const double step = inv[0] * residual(s);
          x[s] = x_is_zero ? step : x[s] + step;
          return;
        }
        if (!shared[n] || !shared_node(s, m))
          for (std::int32_t i = 0; i < m; ++i) r[i] = residual(s + i);
        for (std::int32_t i = 0; i < m; ++i) {
          double step = 0;
          for (std::int32_t j = 0; j < m; ++j) step += inv[i * m + j] * r[j];
          x[s + i] = x_is_zero ? step : x[s + i] + step;
        }
      };
      if (forward) {
        for (std::int32_t n = first_node; n < end_node; ++n) node(n);
      } else {
        for (std::int32_t n = end_node - 1; n >= first_node; --n) node(n);
      }
    }
  }
}

void HybridGaussSeidel::forward(const HostCsrMatrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps) {
  const auto t0 = std::chrono::steady_clock::now();
  const double* bv = b.host_double(Access::Read);
  double* xv = x.host_double(x_is_zero ? Access::Write : Access::ReadWrite);
  for (int s = 0; s < sweeps; ++s) sweep(A, bv, xv, true, x_is_zero && s == 0);
  record(A, sweeps, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

void HybridGaussSeidel::backward(const HostCsrMatrix& A, Vector& b, Vector& x, int sweeps) {
  const auto t0 = std::chrono::steady_clock::now();
  const double* bv = b.host_double(Access::Read);
  double* xv = x.host_double(Access::ReadWrite);
  for (int s = 0; s < sweeps; ++s) sweep(A, bv, xv, false, false);
  record(A, sweeps, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// A full sweep's flops and bytes (a sweep from zero moves about half of them): the matrix once, b, x
// read and written, the start copy, the inverse blocks.
void HybridGaussSeidel::record(const HostCsrMatrix& A, int sweeps, double seconds) {
  const double nnz = static_cast<double>(A.nnz()), n = static_cast<double>(A.rows);
  const double blocks = static_cast<double>(blocks_.matrix().nnz());
  blas_.record_host("gauss_seidel", sweeps * (2 * nnz + 2 * blocks), sweeps * (12 * nnz + 8 * blocks + 40 * n),
                    seconds);
}

std::string HybridGaussSeidel::description() const {
  const std::string by = largest_node_ > 1 ? "node-block " : "";
  return "l1 hybrid " + by + "gauss-seidel (" + std::to_string(ranges_) + (ranges_ == 1 ? " range" : " ranges") +
         ", forward before the coarse correction, backward after)";
}

}  // namespace clkr::detail
