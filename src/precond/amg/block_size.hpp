// The number of unknowns per node of a matrix, read from its sparsity pattern, for AmgOptions::block_size
// = 0 (auto). The unknowns of one mesh node couple to the unknowns of the same neighbouring nodes, even
// where some of the couplings are structural zeros (shell elements store no rotation-translation
// coupling of some pairs, so neither identical rows nor dense diagonal blocks are a usable test: on
// bcsstk17 only 23% of the 6-row groups have identical rows and 29% a dense 6 x 6 diagonal block).
#pragma once

#include <cstdint>

#include "clkr/data/host_csr_matrix.hpp"

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
// divides: 1.
std::int32_t detect_block_size(const HostCsrMatrix& A);

constexpr std::int32_t kMaxDetectedBlock = 8;
constexpr double kDetectedBlockShare = 0.8;
constexpr double kDetectedBlockFill = 0.65;

}  // namespace clkr::detail::amg
