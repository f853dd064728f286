// Greedy aggregation of the strength graph's nodes (Vanek, Mandel and Brezina 1996, three passes):
// 1. every node whose strong neighbours are all still free starts an aggregate with them (a "star");
// 2. every node still free joins the aggregate of its most strongly connected neighbour from pass 1;
// 3. what is left (rare: a free node whose neighbours are all taken by pass 2) forms aggregates with its
//    free neighbours.
// Nodes without strong neighbours are left out (-1): nothing couples them to the rest, the smoother
// alone treats them and the prolongator has no row entries for them.
#pragma once

#include <cstdint>
#include <vector>

#include "strength.hpp"

namespace clkr::detail::amg {

struct Aggregates {
  std::vector<std::int32_t> of_node;  // the aggregate of each node, -1 for a node left out
  std::int32_t count = 0;
};

Aggregates aggregate(const StrengthGraph& S);

}  // namespace clkr::detail::amg
