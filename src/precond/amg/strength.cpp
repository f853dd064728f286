// Strength of connection: block (Frobenius) norms per node pair, then the threshold test.
#include "strength.hpp"

#include <algorithm>
#include <cmath>

#include "../../runtime/large_vectors.hpp"

namespace clkr::detail::amg {

NodeLayout NodeLayout::uniform(std::int32_t rows, std::int32_t block_size) {
  NodeLayout layout;
  const std::int32_t count = rows / block_size;
  layout.offsets.resize(static_cast<std::size_t>(count) + 1);
  for (std::int32_t k = 0; k <= count; ++k) layout.offsets[k] = k * block_size;
  return layout;
}

std::int32_t NodeLayout::smallest() const {
  std::int32_t size = count() > 0 ? offsets[1] - offsets[0] : 0;
  for (std::int32_t k = 1; k < count(); ++k) size = std::min(size, offsets[k + 1] - offsets[k]);
  return size;
}

std::int32_t NodeLayout::largest() const {
  std::int32_t size = 0;
  for (std::int32_t k = 0; k < count(); ++k) size = std::max(size, offsets[k + 1] - offsets[k]);
  return size;
}

std::vector<std::int32_t> NodeLayout::node_of_rows() const {
  std::vector<std::int32_t> node(static_cast<std::size_t>(rows()));
  for (std::int32_t k = 0; k < count(); ++k)
    for (std::int32_t r = offsets[k]; r < offsets[k + 1]; ++r) node[r] = k;
  return node;
}

namespace {

// One unknown per node: a_ij^2 > eps^2 |a_ii a_jj| entry by entry, A's own (sorted) column order giving
// each node's neighbours in order, no block norms to gather. The test runs as |a_ij| > eps s_i s_j with
// s_i = sqrt|a_ii|: no square of a value can overflow.
StrengthGraph scalar_strength(const HostCsrMatrix& A, double eps, StrengthOutput output) {
  const std::int32_t n = A.rows;
  std::vector<double> root = large_vector(static_cast<std::size_t>(n), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    double d = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) d += A.values[k];
    root[i] = std::sqrt(std::abs(d));
  }
  StrengthGraph S;
  assign_large(S.keep, A.values.size(), char{0});
  assign_large(S.offsets, static_cast<std::size_t>(n) + 1, 0);
  // First the marks and the counts, then the neighbour lists at their offsets.
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    std::int32_t strong = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = A.col_indices[k];
      if (j == i) {
        S.keep[k] = 1;
        continue;
      }
      if (std::abs(A.values[k]) > eps * root[i] * root[j] && root[i] > 0 && root[j] > 0) {
        S.keep[k] = 1;
        ++strong;
      }
    }
    S.offsets[i + 1] = strong;
  }
  for (std::int32_t i = 0; i < n; ++i) S.offsets[i + 1] += S.offsets[i];
  resize_large(S.neighbours, static_cast<std::size_t>(S.offsets.back()));
  resize_large(S.weights, S.neighbours.size());
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    std::int32_t out = S.offsets[i];
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = A.col_indices[k];
      if (j == i || !S.keep[k]) continue;
      const double ratio = std::abs(A.values[k]) / root[i] / root[j];
      S.neighbours[out] = j;
      S.weights[out++] = ratio * ratio;
    }
  }
  if (output == StrengthOutput::GraphOnly) S.keep = {};  // the marks served the lists above
  return S;
}

}  // namespace

StrengthGraph strength_of_connection(const HostCsrMatrix& A, const NodeLayout& nodes, double eps,
                                     StrengthOutput output) {
  if (nodes.count() == A.rows) return scalar_strength(A, eps, output);
  const std::int32_t count = nodes.count();
  const std::vector<std::int32_t> node_of = nodes.node_of_rows();
  // Every entry of block IJ is scaled by h_I h_J, h_X = 2^-f_X with 2^(2 f_X) near the largest |a| of
  // node X's diagonal block (within a factor 4): for an SPD matrix |a_ij| <= sqrt(a_ii a_jj), so the
  // scaled entries stay near 1 or below, their squares cannot overflow, and a square underflows
  // only where its entry lies 1e-154 below its blocks' scale, far below any threshold. The test
  // ||A_IJ||^2 > eps^2 ||A_II|| ||A_JJ|| and the weight then read the scaled norms as they are (the
  // scale factors cancel), and D A D with D a power of two per node gives the unscaled bits. (Summing
  // the raw squares in long double instead cost a quarter of this function's time.)
  std::vector<double> half_scale(static_cast<std::size_t>(count), 1.0), diagonal(static_cast<std::size_t>(count), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t I = 0; I < count; ++I) {
    double largest = 0;
    for (std::int32_t r = nodes.offsets[I]; r < nodes.offsets[I + 1]; ++r)
      for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k)
        if (node_of[A.col_indices[k]] == I) largest = std::max(largest, std::abs(A.values[k]));
    int e = 0;
    std::frexp(largest, &e);  // largest < 2^e; a zero block keeps h = 1 and a zero norm: never strong
    const double h = std::ldexp(1.0, -(e >= 0 ? e / 2 : -((1 - e) / 2)));  // 2^-floor(e / 2)
    double sum = 0;
    for (std::int32_t r = nodes.offsets[I]; r < nodes.offsets[I + 1]; ++r)
      for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k)
        if (node_of[A.col_indices[k]] == I) {
          const double v = A.values[k] * h * h;
          sum += v * v;
        }
    half_scale[I] = h;
    diagonal[I] = std::sqrt(sum);
  }

  StrengthGraph S;
  const bool marks = output == StrengthOutput::GraphAndFilter;
  if (marks) S.keep.assign(A.values.size(), 0);
  // Nodes in contiguous blocks handed out dynamically; each block keeps its own neighbour lists, which
  // are concatenated afterwards (no per-node allocation).
  struct Block {
    std::vector<std::int32_t> lengths, neighbours;
    std::vector<double> weights;
  };
  const int block_count = std::max(1, std::min<int>(count, 64));
  std::vector<Block> blocks(static_cast<std::size_t>(block_count));
  const auto first = [&](int b) {
    return static_cast<std::int32_t>(static_cast<std::int64_t>(count) * b / block_count);
  };
  const double eps2 = eps * eps;
#pragma omp parallel
  {
    // ||A_IJ||_F^2 h_I^2 h_J^2 of the node row being scanned, per neighbour node J; touched lists the J's,
    // strong marks the strong ones for the filtered matrix's marks (a binary search per entry in the
    // node's list of strong neighbours took a quarter of the time).
    std::vector<double> norm2(static_cast<std::size_t>(count), 0.0);
    std::vector<char> seen(static_cast<std::size_t>(count), 0), strong(marks ? static_cast<std::size_t>(count) : 0, 0);
    std::vector<std::int32_t> touched;
#pragma omp for schedule(dynamic)
    for (int b = 0; b < block_count; ++b) {
      Block& block = blocks[b];
      for (std::int32_t I = first(b); I < first(b + 1); ++I) {
        const double h = half_scale[I];
        for (std::int32_t r = nodes.offsets[I]; r < nodes.offsets[I + 1]; ++r) {
          for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
            const std::int32_t J = node_of[A.col_indices[k]];
            if (J == I) continue;
            if (!seen[J]) {
              seen[J] = 1;
              touched.push_back(J);
            }
            const double v = A.values[k] * h * half_scale[J];
            norm2[J] += v * v;
          }
        }
        std::sort(touched.begin(), touched.end());
        const std::size_t before = block.neighbours.size();
        for (std::int32_t J : touched) {
          const double scale = diagonal[I] * diagonal[J];
          if (scale > 0 && norm2[J] > eps2 * scale) {
            block.neighbours.push_back(J);
            block.weights.push_back(norm2[J] / scale);
            if (marks) strong[J] = 1;
          }
          norm2[J] = 0;
          seen[J] = 0;
        }
        touched.clear();
        block.lengths.push_back(static_cast<std::int32_t>(block.neighbours.size() - before));
        if (!marks) continue;
        // The filtered matrix keeps entries inside the node and to strong neighbours.
        for (std::int32_t r = nodes.offsets[I]; r < nodes.offsets[I + 1]; ++r) {
          for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
            const std::int32_t J = node_of[A.col_indices[k]];
            S.keep[k] = J == I || strong[J];
          }
        }
        for (std::size_t n = before; n < block.neighbours.size(); ++n) strong[block.neighbours[n]] = 0;
      }
    }
  }
  S.offsets.assign(static_cast<std::size_t>(count) + 1, 0);
  for (int b = 0; b < block_count; ++b)
    for (std::size_t j = 0; j < blocks[b].lengths.size(); ++j) {
      const std::int32_t I = first(b) + static_cast<std::int32_t>(j);
      S.offsets[I + 1] = S.offsets[I] + blocks[b].lengths[j];
    }
  S.neighbours.reserve(static_cast<std::size_t>(S.offsets.back()));
  S.weights.reserve(static_cast<std::size_t>(S.offsets.back()));
  for (const Block& block : blocks) {
    S.neighbours.insert(S.neighbours.end(), block.neighbours.begin(), block.neighbours.end());
    S.weights.insert(S.weights.end(), block.weights.begin(), block.weights.end());
  }
  return S;
}

}  // namespace clkr::detail::amg
