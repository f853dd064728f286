// Parallel, deterministic aggregation on the device (aggregation.cl): the roots a distance-2 maximal
// independent set of the strength graph with hashed priorities (Bell, Dalton and Olson 2012), their
// neighbours joining them, the remaining nodes joining their most strongly connected aggregated
// neighbour. Every node with a strong neighbour ends in exactly one aggregate, connected through strong
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

DeviceAggregates device_aggregate(const SetupKernels& kernels, const DeviceStrength& S);

}  // namespace clkr::detail::amg
