// Aggressive coarsening: aggregation on the distance-two strength graph (a node's strong neighbours and
// theirs), so that an aggregate takes a node's whole two-ring. On a 3D 7-point stencil the aggregates
// grow from about 8 nodes to about 34, the next level has 4x fewer rows and its operator 5x fewer
// nonzeros; the V-cycle is cheaper and the iterations rise (docs/preconditioners.md measures both).
#pragma once

#include "strength.hpp"

namespace clkr::detail::amg {

// The graph whose neighbours of node i are its strong neighbours in S (with their weights, raised by
// 1 so that pass 2 of the aggregation prefers them) and their strong neighbours (weight: the product of
// the two connections' weights), i excluded, each once. Only the node CSR is filled (not `keep`).
StrengthGraph distance_two_graph(const StrengthGraph& S);

}  // namespace clkr::detail::amg
