// Parallel, deterministic aggregation on the device (aggregation.cl): the roots a distance-k maximal
// independent set of the strength graph with hashed priorities (Bell, Dalton and Olson 2012; k = 2, or
// 4 for aggressive coarsening: roots at least k + 1 strong connections apart), their neighbours joining
// them, the remaining nodes joining their most strongly connected aggregated neighbour, pass by pass
// outwards. Every node with a strong neighbour ends in exactly one aggregate, connected through strong
// connections; nodes without one are left out (-1), as on the host. The same aggregates on every run.
#pragma once

#include <cstdint>

#include "device_strength.hpp"

namespace clkr::detail::amg {

struct DeviceAggregates {
  cl::Buffer of_node;  // per node: its aggregate, -1 when left out
  std::int32_t count = 0;
  int rounds = 0;  // rounds the independent set took
};

DeviceAggregates device_aggregate(const SetupKernels& kernels, const DeviceStrength& S, int distance = 2);

}  // namespace clkr::detail::amg
