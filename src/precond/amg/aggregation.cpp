// Vanek's three aggregation passes over the strength graph, in node order (deterministic).
#include "aggregation.hpp"

namespace clkr::detail::amg {

namespace {
constexpr std::int32_t kFree = -2;
constexpr std::int32_t kLeftOut = -1;
}  // namespace

Aggregates aggregate(const StrengthGraph& S) {
  const std::int32_t n = S.nodes();
  Aggregates result;
  std::vector<std::int32_t>& of = result.of_node;
  of.assign(static_cast<std::size_t>(n), kFree);
  auto neighbours = [&](std::int32_t i) {
    return std::pair(S.neighbours.begin() + S.offsets[i], S.neighbours.begin() + S.offsets[i + 1]);
  };
  for (std::int32_t i = 0; i < n; ++i)
    if (S.offsets[i] == S.offsets[i + 1]) of[i] = kLeftOut;

  // Pass 1: stars of free nodes around a free root.
  for (std::int32_t i = 0; i < n; ++i) {
    if (of[i] != kFree) continue;
    const auto [begin, end] = neighbours(i);
    bool all_free = true;
    for (auto j = begin; j != end && all_free; ++j) all_free = of[*j] == kFree || of[*j] == kLeftOut;
    if (!all_free) continue;
    const std::int32_t id = result.count++;
    of[i] = id;
    for (auto j = begin; j != end; ++j)
      if (of[*j] == kFree) of[*j] = id;
  }
  // Pass 2: free nodes join the pass-1 aggregate they are most strongly connected to (decided from
  // the pass-1 assignment alone, so that joins do not chain).
  const std::vector<std::int32_t> pass1 = of;
  for (std::int32_t i = 0; i < n; ++i) {
    if (of[i] != kFree) continue;
    double best = -1;
    for (std::int32_t k = S.offsets[i]; k < S.offsets[i + 1]; ++k) {
      const std::int32_t j = S.neighbours[k];
      if (pass1[j] >= 0 && S.weights[k] > best) {
        best = S.weights[k];
        of[i] = pass1[j];
      }
    }
  }
  // Pass 3: the rest, with their free neighbours.
  for (std::int32_t i = 0; i < n; ++i) {
    if (of[i] != kFree) continue;
    const std::int32_t id = result.count++;
    of[i] = id;
    const auto [begin, end] = neighbours(i);
    for (auto j = begin; j != end; ++j)
      if (of[*j] == kFree) of[*j] = id;
  }
  return result;
}

}  // namespace clkr::detail::amg
