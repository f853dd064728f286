// The distance-two strength graph: per node, its one- and two-ring gathered into a small buffer, sorted
// and deduplicated (OpenMP over nodes: counts first, then the lists at their offsets; deterministic).
#include "aggressive_aggregation.hpp"

#include <algorithm>
#include <utility>

#include "../../runtime/large_vectors.hpp"

namespace clkr::detail::amg {
namespace {

using Ring = std::vector<std::pair<std::int32_t, double>>;

// i's one- and two-ring, i excluded, each node once (by column) with its largest weight: a direct
// neighbour's weight + 1, a neighbour's neighbour's the product of the two connections' weights.
void two_ring(const StrengthGraph& S, std::int32_t i, Ring& ring) {
  ring.clear();
  for (std::int32_t k = S.offsets[i]; k < S.offsets[i + 1]; ++k) {
    const std::int32_t j = S.neighbours[k];
    ring.emplace_back(j, S.weights[k] + 1.0);
    for (std::int32_t k2 = S.offsets[j]; k2 < S.offsets[j + 1]; ++k2)
      if (S.neighbours[k2] != i) ring.emplace_back(S.neighbours[k2], S.weights[k] * S.weights[k2]);
  }
  std::sort(ring.begin(), ring.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second > b.second);
  });
  ring.erase(std::unique(ring.begin(), ring.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
             ring.end());
}

}  // namespace

StrengthGraph distance_two_graph(const StrengthGraph& S) {
  const std::int32_t n = S.nodes();
  StrengthGraph S2;
  assign_large(S2.offsets, static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel
  {
    Ring ring;
#pragma omp for schedule(static)
    for (std::int32_t i = 0; i < n; ++i) {
      two_ring(S, i, ring);
      S2.offsets[i + 1] = static_cast<std::int32_t>(ring.size());
    }
  }
  for (std::int32_t i = 0; i < n; ++i) S2.offsets[i + 1] += S2.offsets[i];
  resize_large(S2.neighbours, static_cast<std::size_t>(S2.offsets.back()));
  resize_large(S2.weights, S2.neighbours.size());
#pragma omp parallel
  {
    Ring ring;
#pragma omp for schedule(static)
    for (std::int32_t i = 0; i < n; ++i) {
      two_ring(S, i, ring);
      std::int32_t out = S2.offsets[i];
      for (const auto& [j, w] : ring) {
        S2.neighbours[out] = j;
        S2.weights[out++] = w;
      }
    }
  }
  return S2;
}

}  // namespace clkr::detail::amg
