// Block-size detection: per candidate b, up to 4096 nodes spread evenly over the matrix, each row's set
// of reached nodes compared with its node's first row's, and the diagonal blocks' entries counted. A
// candidate stops being sampled as soon as it can no longer reach kDetectedBlockShare or
// kDetectedBlockFill: on a stencil (no blocks) the first few nodes settle every candidate. The full
// sample visited 57,000 rows of poisson3d:128 (b = 2, 4, 8), scattered over 60 MB of column indices:
// 5-8 ms of the AMG setup on the H200 machine's host (2026-11-29).
#include "block_size.hpp"

#include <algorithm>
#include <vector>

namespace clkr::detail::amg {
namespace {

constexpr std::int32_t kSampledNodes = 4096;

// The sorted, deduplicated nodes (column / b) row i reaches, into `out`.
void reached_nodes(const HostCsrMatrix& A, std::int32_t i, std::int32_t b, std::vector<std::int32_t>& out) {
  out.clear();
  for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) out.push_back(A.col_indices[k] / b);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

struct Sample {
  bool possible = true;   // false: stopped once the share or the fill could no longer reach its bar
  double consistent = 0;  // share of nodes whose rows reach the same nodes
  double fill = 0;        // mean share of the b x b diagonal block that is stored
};

Sample sample_nodes(const HostCsrMatrix& A, std::int32_t b) {
  const std::int32_t nodes = A.rows / b, samples = std::min(nodes, kSampledNodes);
  const double block = static_cast<double>(b) * b;
  std::vector<std::int32_t> first, other;
  std::int64_t consistent = 0, stored = 0;
  Sample sample;
  for (std::int32_t s = 0; s < samples; ++s) {
    const std::int32_t node = static_cast<std::int32_t>(static_cast<std::int64_t>(s) * nodes / samples);
    reached_nodes(A, node * b, b, first);
    bool same = true;
    for (std::int32_t c = 0; c < b; ++c) {
      const std::int32_t row = node * b + c;
      for (std::int64_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k)
        stored += A.col_indices[k] / b == node ? 1 : 0;
      if (c == 0 || !same) continue;
      reached_nodes(A, row, b, other);
      same = other == first;
    }
    consistent += same ? 1 : 0;
    // The largest share and fill the remaining nodes could still bring, computed as the final ones are.
    const double remaining = samples - (s + 1.0);
    if ((static_cast<double>(consistent) + remaining) / samples < kDetectedBlockShare ||
        (static_cast<double>(stored) + remaining * block) / (samples * block) < kDetectedBlockFill) {
      sample.possible = false;
      return sample;
    }
  }
  if (samples > 0) {
    sample.consistent = static_cast<double>(consistent) / samples;
    sample.fill = static_cast<double>(stored) / (static_cast<double>(samples) * block);
  }
  return sample;
}

}  // namespace

std::int32_t detect_block_size(const HostCsrMatrix& A) {
  std::int32_t best = 1;
  double best_share = 0;
  for (std::int32_t b = 2; b <= kMaxDetectedBlock; ++b) {
    if (A.rows < b || A.rows % b != 0) continue;
    const Sample sample = sample_nodes(A, b);
    // A candidate below either bar never decides the result: the b returned is the one with the
    // largest share when that share reaches kDetectedBlockShare, else 1.
    if (!sample.possible || sample.fill < kDetectedBlockFill) continue;
    // Ties go to the larger b: where a node's unknowns all couple to all of a neighbour's, every
    // divisor of the true block size passes as well.
    if (sample.consistent > 0 && sample.consistent >= best_share) {
      best_share = sample.consistent;
      best = b;
    }
  }
  return best_share >= kDetectedBlockShare ? best : 1;
}

}  // namespace clkr::detail::amg
