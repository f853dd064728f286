// The inverse of a matrix's node-block diagonal: for each node (consecutive rows that belong together:
// the unknowns of one mesh point, or the coarse unknowns one aggregate made) the inverse of A's square
// block on the node's rows and columns, stored as a block-diagonal CSR matrix. A smoother that scales
// its residual by it instead of by 1 / diag(A) relaxes the unknowns of a node together (hypre calls it
// nodal relaxation): on the SuiteSparse shells (Cylshell's, bcsstk14) and bcsstk17, whose unknowns
// within a node are coupled as strongly as across nodes, the AMG-PCG takes 18-75% fewer iterations
// (none fewer on bcsstk16: docs/preconditioners.md).
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail {

// What else NodeBlockInverse computes: `added_diagonal` (empty, or a value per row) is added to the
// blocks' diagonals before they are inverted (the l1 hybrid Gauss-Seidel's divisors); `gershgorin`
// asks for the bound on B^-1 A (a product as large as A times the node size, which Gauss-Seidel does
// not need).
struct NodeBlockExtras {
  std::vector<double> added_diagonal;
  bool gershgorin = true;
};

class NodeBlockInverse {
 public:
  // The inverse blocks of A on the nodes of `offsets` (node k owns rows offsets[k] .. offsets[k+1]-1;
  // 0 first, A.rows last). `level` names A in errors. Throws clkr::Error when a block is not
  // symmetric positive definite (its Cholesky factorisation breaks down), naming the node, its rows
  // and the level.
  NodeBlockInverse(const HostCsrMatrix& A, std::vector<std::int32_t> offsets, int level, NodeBlockExtras extras = {});

  // New values of A on the same pattern (the setup's offsets): the blocks recomputed (with `added`,
  // when given, as the new added diagonal).
  void refresh(const HostCsrMatrix& A);
  void refresh(const HostCsrMatrix& A, std::vector<double> added_diagonal);

  // The block-diagonal matrix of the inverse blocks (rows = cols = A.rows, each node's block dense).
  const HostCsrMatrix& matrix() const { return inverse_; }
  // max_i sum_j |(B^-1 A)_ij| with B the block diagonal: Gershgorin's bound on the eigenvalues of
  // B^-1 A (real and positive: B^-1 A is similar to the SPD B^-1/2 A B^-1/2); 0 unless asked for.
  double gershgorin() const { return gershgorin_; }
  // Whether some node has more than one unknown (else the blocks are 1 / diag(A) and a smoother
  // should use its point kernels): of these blocks, and of nodes at `offsets` before any is built.
  bool has_blocks() const { return has_blocks(offsets_); }
  static bool has_blocks(const std::vector<std::int32_t>& offsets);

 private:
  std::vector<std::int32_t> offsets_;
  int level_;
  NodeBlockExtras extras_;
  HostCsrMatrix inverse_;
  double gershgorin_ = 0;
};

}  // namespace clkr::detail
