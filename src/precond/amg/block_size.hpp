// The number of unknowns per node of a matrix, read from its sparsity pattern, for AmgOptions::block_size
// = 0 (auto). The unknowns of one mesh node couple to the unknowns of the same neighbouring nodes, even
// where some of the couplings are structural zeros (shell elements store no rotation-translation
// coupling of some pairs, so neither identical rows nor dense diagonal blocks are a usable test: on
// bcsstk17 only 23% of the 6-row groups have identical rows and 29% a dense 6 x 6 diagonal block).
#pragma once

#include <cstdint>
#include <optional>

#include "clkr/data/host_csr_matrix.hpp"
#include "nodes.hpp"

namespace clkr::detail::amg {

// For each b in 2..kMaxDetectedBlock dividing the rows: the share of sampled nodes (groups of b
// consecutive rows) whose rows all reach the same set of nodes (columns / b), and the mean share of
// their b x b diagonal blocks that is stored. The b with the largest share (the larger b on a tie)
// among those whose diagonal blocks are at least kDetectedBlockFill full wins when that share is at
// least kDetectedBlockShare; else 1. The fill test rejects the lines of a small grid (a 3D stencil on
// an 8^3 grid: 8 consecutive rows are an x-line, every row of which reaches the same lines, but its
// diagonal block is tridiagonal, 34% full; FEM nodes' blocks are 79-98% full on the SuiteSparse set).
// On that set: bcsstk17 6 (86% of its nodes), bcsstk16 3 (96%); stencils on larger grids give 0%
// for every b, and the shells whose constrained unknowns were removed have 5489 rows, which no b
// divides: 1. `share`, where given, receives the winner's share (0 for 1).
std::int32_t detect_block_size(const HostCsrMatrix& A, double* share = nullptr);

constexpr std::int32_t kMaxDetectedBlock = 8;
constexpr double kDetectedBlockShare = 0.8;
constexpr double kDetectedBlockFill = 0.65;

// Nodes of different sizes, for a matrix in which no fixed b passes (mesh nodes that lost their
// constrained unknowns: the Cylshell matrices keep 5489 of the 961 x 6 unknowns of a 31 x 31 mesh).
// Consecutive rows join one node while they share at least kNodeRowSimilarity of their columns (the
// size of the intersection of their column sets over the size of their union), up to kMaxDetectedBlock
// rows a node: a node's unknowns couple to nearly the same unknowns, a neighbouring node's to a third
// to a half fewer (shells: 0.8-1.0 within a node, 0.4-0.5 across; 5-, 7- and 27-point stencils and
// banded matrices: at most 0.5 between neighbouring rows). The nodes are returned when, as for a
// fixed b, at least kDetectedBlockShare of them have rows that all reach the same nodes and their
// diagonal blocks are at least kDetectedBlockFill full, and they average at least kMinMeanNodeSize rows
// (fewer: mostly lone rows, as bcsstk18's and bcsstk25's, where nodes would only add work); else
// nothing. s1rmq4m1, s2rmq4m1, s2rmt3m1, s3rmq4m1: 961-965 nodes, 99-100% consistent.
// That mean needs at least 2/3 of the neighbouring rows alike; kSampledRowPairs pairs spread evenly
// over the matrix are tried first, and fewer than kSampledAlikeShare of them alike give nothing at
// once: a stencil of millions of rows costs a few thousand row comparisons, not a pass over its entries.
// `share`, where given and nodes are returned, receives the share of them whose rows all reach the
// same nodes: the AMG prefers a fixed b that is more consistent (elasticity3d: b = 3 for every node,
// where the nodes next to the clamped face and the far face pass the similarity test with their
// neighbours', and merging them gives nodes of 3-6 rows, 86% consistent).
std::optional<NodeLayout> detect_variable_nodes(const HostCsrMatrix& A, double* share = nullptr);

constexpr double kNodeRowSimilarity = 0.65;
constexpr double kMinMeanNodeSize = 3;
constexpr std::int32_t kSampledRowPairs = 4096;
constexpr double kSampledAlikeShare = 0.5;

}  // namespace clkr::detail::amg
