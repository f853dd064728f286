// The rounds of the independent set (distance + 1 launches and a counter read every other round), the
// roots numbered by a prefix sum, then the joining passes.
#include "device_aggregation.hpp"

#include "clkr/runtime/error.hpp"
#include "device_scan.hpp"

namespace clkr::detail::amg {

DeviceAggregates device_aggregate(const SetupKernels& kernels, const DeviceStrength& S, int distance) {
  if (distance < 2) throw Error("amg: device_aggregate takes an independence distance of 2 or more");
  const DevicePattern& g = S.graph;
  const auto nodes = static_cast<std::size_t>(g.rows);
  const auto n = static_cast<cl_int>(g.rows);
  DeviceAggregates result;
  cl::Buffer state = kernels.array<cl_int>(nodes, "aggregation states");
  cl::Buffer best = kernels.array<cl_ulong>(nodes, "aggregation tuples");
  cl::Buffer best2 = kernels.array<cl_ulong>(nodes, "aggregation tuples at distance 2");
  cl::Buffer counter = kernels.array<cl_int>(1, "aggregation counter");
  cl::Kernel init = kernels.kernel("aggregation.cl", "mis_init");
  set_args(init, n, g.offsets, state);
  kernels.per_item(init, nodes);
  cl::Kernel spread_state = kernels.kernel("aggregation.cl", "mis_spread_state");
  set_args(spread_state, n, g.offsets, g.columns, state, best);
  // The maxima spread distance - 1 more steps, between best and best2 in turn (one kernel object:
  // SetupKernels hands out one per name, so its arguments are set before each launch).
  cl::Kernel spread = kernels.kernel("aggregation.cl", "mis_spread");
  cl::Kernel decide = kernels.kernel("aggregation.cl", "mis_decide");
  set_args(decide, n, distance % 2 == 0 ? best2 : best, state, counter);
  // Each round decides at least the undecided node of highest priority: at most `nodes` rounds, in
  // practice a handful (more on graphs with long chains of decreasing priority). Rounds go in pairs
  // between reads of the count (a wait for the device each): a round with nothing left to decide
  // changes nothing.
  for (std::int32_t undecided = g.rows; undecided > 0;) {
    for (int round = 0; round < 2; ++round) {
      kernels.fill(counter, cl_int{0}, 1);
      kernels.per_item(spread_state, nodes);
      for (int step = 1; step < distance; ++step) {
        if (step % 2 == 1) {
          set_args(spread, n, g.offsets, g.columns, best, best2);
        } else {
          set_args(spread, n, g.offsets, g.columns, best2, best);
        }
        kernels.per_item(spread, nodes);
      }
      kernels.per_item(decide, nodes);
      ++result.rounds;
    }
    undecided = kernels.read<cl_int>(counter, 0);
  }

  cl::Buffer numbers = kernels.array<cl_int>(nodes + 1, "aggregate numbers");
  cl::Kernel flags = kernels.kernel("aggregation.cl", "aggregate_root_flags");
  set_args(flags, n, state, numbers);
  kernels.per_item(flags, nodes);
  result.count = exclusive_scan(kernels, numbers, g.rows, "the aggregate roots");

  result.of_node = kernels.array<cl_int>(nodes, "aggregate of each node");
  cl::Kernel join_roots = kernels.kernel("aggregation.cl", "aggregate_join_roots");
  set_args(join_roots, n, g.offsets, g.columns, S.weights, state, numbers, result.of_node);
  kernels.per_item(join_roots, nodes);
  // Every node the independent set decided OUT has a root within `distance` strong connections, and the
  // nodes on the way join one step further from the root per pass, so distance - 1 passes of joining
  // neighbours leave no node free; the loop guards that argument.
  cl::Buffer joined = kernels.array<cl_int>(nodes, "aggregate of each node after a join");
  cl::Kernel join = kernels.kernel("aggregation.cl", "aggregate_join_neighbours");
  for (int pass = 0;; ++pass) {
    kernels.fill(counter, cl_int{0}, 1);
    set_args(join, n, g.offsets, g.columns, S.weights, result.of_node, joined, counter);
    kernels.per_item(join, nodes);
    std::swap(result.of_node, joined);
    const cl_int still_free = kernels.read<cl_int>(counter, 0);
    if (still_free == 0) break;
    if (pass == distance + 6)
      throw Error("amg: the device aggregation left " + std::to_string(still_free) +
                  " nodes without an aggregate (an internal error: please report it)");
  }
  return result;
}

}  // namespace clkr::detail::amg
