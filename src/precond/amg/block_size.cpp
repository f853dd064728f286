// Block-size detection: per candidate b, up to 4096 nodes spread evenly over the matrix, each row's set
// of reached nodes compared with its node's first row's, and the diagonal blocks' entries counted. A
// candidate stops being sampled as soon as it can no longer reach kDetectedBlockShare or
// kDetectedBlockFill: on a stencil (no blocks) a fifth of the sample settles each candidate. The full
// sample visited 57,000 rows of poisson3d:128 (b = 2, 4, 8), scattered over 60 MB of column indices:
// 5-8 ms of the AMG setup on the H200 machine's host (2026-11-29). Without a sort per row and with the
// candidates on all cores, bcsstk16/17's detection (nodes of different sizes tried too) took 2.5-3.3
// ms there against 8.8 (2026-12-02).
#include "block_size.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace clkr::detail::amg {
namespace {

constexpr std::int32_t kSampledNodes = 4096;
// Entries from which the detection's passes run on all cores (a parallel loop's start and the
// workers' release cost ~0.5 ms on the 16-core H200 host, the passes ~1 ms per 100 k entries).
constexpr std::int64_t kParallelDetection = 100000;

// The sorted, deduplicated nodes node_of(column) row i reaches, into `out`; returns how many of its
// entries lie in node `own` (the diagonal block's). A valid row's columns ascend
// (HostCsrMatrix::validate) and nodes are runs of consecutive columns, so its nodes ascend: dropping
// repeats sorts them (a sort per row took most of the detection's 9-12 ms on bcsstk16/17).
template <class NodeOf>
std::int64_t reached_nodes(const HostCsrMatrix& A, std::int32_t i, const NodeOf& node_of, std::int32_t own,
                           std::vector<std::int32_t>& out) {
  out.clear();
  std::int64_t in_own = 0;
  for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
    const std::int32_t node = node_of(A.col_indices[k]);
    in_own += node == own ? 1 : 0;
    if (out.empty() || out.back() != node) out.push_back(node);
  }
  return in_own;
}

// Rows s .. e - 1, node `own`'s: whether every row reaches the nodes its first row reaches, with the
// rows' entries inside the node added to `stored`. Most rows of a node matrix share their first row's
// columns (HostCsrMatrix::same_columns), and then its reached nodes and its entries in the node too:
// no gather for them (half of the detection's time on elasticity3d, whose rows are alike in threes).
template <class NodeOf>
bool rows_reach_the_same_nodes(const HostCsrMatrix& A, std::int32_t s, std::int32_t e, const NodeOf& node_of,
                               std::int32_t own, std::vector<std::int32_t>& first, std::vector<std::int32_t>& other,
                               std::int64_t& stored) {
  const std::int64_t first_stored = reached_nodes(A, s, node_of, own, first);
  stored += first_stored;
  bool same = true;
  for (std::int32_t row = s + 1; row < e; ++row) {
    if (A.same_columns(row, s)) {
      stored += first_stored;
      continue;
    }
    stored += reached_nodes(A, row, node_of, own, other);
    same = same && other == first;
  }
  return same;
}

// The share of sampled nodes whose rows all reach the same nodes, when it reaches kDetectedBlockShare
// and the diagonal blocks reach kDetectedBlockFill; nothing as soon as either bar is out of reach.
std::optional<double> consistent_share(const HostCsrMatrix& A, std::int32_t b) {
  const std::int32_t nodes = A.rows / b, samples = std::min(nodes, kSampledNodes);
  const double block = static_cast<double>(b) * b;
  const auto node_of = [b](std::int32_t column) { return column / b; };
  std::vector<std::int32_t> first, other;
  std::int64_t consistent = 0, stored = 0;
  for (std::int32_t s = 0; s < samples; ++s) {
    const std::int32_t node = static_cast<std::int32_t>(static_cast<std::int64_t>(s) * nodes / samples);
    const bool same = rows_reach_the_same_nodes(A, node * b, node * b + b, node_of, node, first, other, stored);
    consistent += same ? 1 : 0;
    // The largest share and fill the remaining nodes could still bring; after the last node, the
    // share and the fill themselves.
    const double remaining = samples - (s + 1.0);
    if ((static_cast<double>(consistent) + remaining) / samples < kDetectedBlockShare ||
        (static_cast<double>(stored) + remaining * block) / (samples * block) < kDetectedBlockFill)
      return std::nullopt;
  }
  return static_cast<double>(consistent) / samples;
}

}  // namespace

std::int32_t detect_block_size(const HostCsrMatrix& A, double* share) {
  // The candidates are independent: one a thread (bcsstk16/17: 2-3 full samples of 290-430 k entries).
  std::optional<double> shares[kMaxDetectedBlock + 1];
#pragma omp parallel for schedule(dynamic, 1) if (A.nnz() > kParallelDetection)
  for (std::int32_t b = 2; b <= kMaxDetectedBlock; ++b)
    if (A.rows >= b && A.rows % b == 0) shares[b] = consistent_share(A, b);
  std::int32_t best = 1;
  double best_share = 0;
  for (std::int32_t b = 2; b <= kMaxDetectedBlock; ++b) {
    // Ties go to the larger b: where a node's unknowns all couple to all of a neighbour's, every
    // divisor of the true block size passes as well.
    if (shares[b] && *shares[b] >= best_share) {
      best_share = *shares[b];
      best = b;
    }
  }
  if (share != nullptr) *share = best_share;
  return best;
}

namespace {

// |cols(i) & cols(j)| / |cols(i) | cols(j)| (columns ascending within a row); 1 for two empty rows. Rows
// with the same columns (most neighbouring rows of a node matrix) are told apart first.
double column_similarity(const HostCsrMatrix& A, std::int32_t i, std::int32_t j) {
  if (A.same_columns(i, j)) return 1;
  std::int64_t a = A.row_offsets[i], b = A.row_offsets[j];
  const std::int64_t a_end = A.row_offsets[i + 1], b_end = A.row_offsets[j + 1];
  const std::int64_t total = (a_end - a) + (b_end - b);
  std::int64_t common = 0;
  while (a < a_end && b < b_end) {
    if (A.col_indices[a] == A.col_indices[b]) {
      ++common;
      ++a;
      ++b;
    } else if (A.col_indices[a] < A.col_indices[b]) {
      ++a;
    } else {
      ++b;
    }
  }
  return static_cast<double>(common) / static_cast<double>(total - common);
}

}  // namespace

std::optional<NodeLayout> detect_variable_nodes(const HostCsrMatrix& A, double* share) {
  if (A.rows == 0) return std::nullopt;
  if (A.rows > 1) {
    const std::int32_t pairs = A.rows - 1, samples = std::min(pairs, kSampledRowPairs);
    std::int32_t alike_pairs = 0;
    for (std::int32_t s = 0; s < samples; ++s) {
      const auto i = static_cast<std::int32_t>(static_cast<std::int64_t>(s) * pairs / samples);
      alike_pairs += column_similarity(A, i, i + 1) >= kNodeRowSimilarity ? 1 : 0;
    }
    if (alike_pairs < kSampledAlikeShare * samples) return std::nullopt;
  }
  // Whether rows i and i + 1 are alike, for every i at once; then the cuts, which depend on the node
  // sizes before them, in one pass.
  std::vector<char> alike(static_cast<std::size_t>(A.rows), 0);
  const bool parallel = A.nnz() > kParallelDetection;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int32_t i = 0; i < A.rows - 1; ++i) alike[i] = column_similarity(A, i, i + 1) >= kNodeRowSimilarity;
  NodeLayout nodes;
  std::int32_t first = 0;
  for (std::int32_t i = 0; i + 1 < A.rows; ++i) {
    if (i + 1 - first < kMaxDetectedBlock && alike[i]) continue;
    nodes.offsets.push_back(i + 1);
    first = i + 1;
  }
  nodes.offsets.push_back(A.rows);
  if (static_cast<double>(A.rows) < kMinMeanNodeSize * nodes.count()) return std::nullopt;
  // The fixed sizes' tests over every node: the rows of a node reach the same nodes, and its diagonal
  // block is mostly stored.
  const std::vector<std::int32_t> node_of = nodes.node_of_rows();
  std::int64_t consistent = 0, stored = 0, block = 0;
#pragma omp parallel reduction(+ : consistent, stored, block) if (parallel)
  {
    const auto node_of_column = [&node_of](std::int32_t column) { return node_of[column]; };
    std::vector<std::int32_t> first_reached, reached;
#pragma omp for schedule(static)
    for (std::int32_t k = 0; k < nodes.count(); ++k) {
      const bool same = rows_reach_the_same_nodes(A, nodes.offsets[k], nodes.offsets[k + 1], node_of_column, k,
                                                  first_reached, reached, stored);
      const std::int64_t size = nodes.offsets[k + 1] - nodes.offsets[k];
      block += size * size;
      consistent += same ? 1 : 0;
    }
  }
  if (static_cast<double>(consistent) < kDetectedBlockShare * nodes.count() ||
      static_cast<double>(stored) < kDetectedBlockFill * static_cast<double>(block))
    return std::nullopt;
  if (share != nullptr) *share = static_cast<double>(consistent) / nodes.count();
  return nodes;
}

}  // namespace clkr::detail::amg
