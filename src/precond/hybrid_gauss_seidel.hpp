// The l1 hybrid Gauss-Seidel smoother of the host backend (Baker, Falgout, Kolev and Yang, "Multigrid
// smoothers for ultraparallel computing", SISC 2011; hypre's relaxation type 8), by nodes: the nodes
// (node_block_inverse.hpp; single unknowns on scalar problems) are cut into `ranges` runs of
// consecutive nodes, one per host thread. Within a range the sweep is block Gauss-Seidel (a node is
// solved with its diagonal block against the new values of the nodes before it), across ranges it
// reads the values the sweep started from (Jacobi), and each row's diagonal gets the absolute values
// of its entries in other ranges added (the l1 term). That keeps M + M^T - A SPD for every SPD A
// whatever the cut, so the sweep converges, and the cut's coupling costs little: two ranges on two
// cores leave one seam. More seams cost iterations (on 16 threads 1.2-2x those of 2 on the stiff
// SuiteSparse set), but fewer ranges than threads leave cores idle during every sweep: ranges of at
// least 64 k entries (3-6 on those matrices) took 17-45% fewer iterations and 0-25% more time on an
// H100 machine's 16 cores (docs/preconditioners.md), so every thread keeps a range.
//
// Why on the host: a sweep costs one pass over the matrix, and from x = 0 (a V-cycle's pre-smoothing)
// only each range's entries before the node, where a Chebyshev(3) sweep takes three SpMVs. On a CPU the
// passes over the finest matrix are what a V-cycle's time is made of (bcsstk25: eight fine SpMVs of
// 65 us an iteration, docs/performance-amg-host-tried.md). A GPU has no long ranges to give (thousands
// of rows a work-item would serialise it), so the device keeps the Chebyshev smoother.
//
// The pre-smoother sweeps forward (nodes in ascending order), the post-smoother backward, so the
// V-cycle stays symmetric (the backward sweep is the forward one's adjoint) and fits inside CG. The cut
// is fixed at construction, so a hierarchy gives the same iterates however many threads run a sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "node_block_inverse.hpp"

namespace clkr::detail {

class HybridGaussSeidel {
 public:
  // `node_offsets`: the nodes (node_block_inverse.hpp), or {0} for single unknowns. Refuses
  // (clkr::Error naming the level, node and rows) a block that is not SPD, a diagonal entry that is
  // not positive among them.
  HybridGaussSeidel(Blas& blas, const HostCsrMatrix& A, std::vector<std::int32_t> node_offsets, int ranges, int level);

  // New values of A on the same pattern: the l1 terms and the blocks again.
  void refresh(const HostCsrMatrix& A);

  // `sweeps` forward sweeps of A x = b (x_is_zero: x's contents are ignored and taken as zero, and each
  // range's first sweep reads only the entries left of each node).
  void forward(const HostCsrMatrix& A, Vector& b, Vector& x, bool x_is_zero, int sweeps);
  // `sweeps` backward sweeps (x is read).
  void backward(const HostCsrMatrix& A, Vector& b, Vector& x, int sweeps);

  int ranges() const { return ranges_; }
  std::string description() const;

 private:
  void sweep(const HostCsrMatrix& A, const double* b, double* x, bool forward, bool x_is_zero);
  void record(const HostCsrMatrix& A, int sweeps, double seconds);
  // The absolute values of each row's entries in other ranges.
  std::vector<double> l1_terms(const HostCsrMatrix& A) const;

  Blas& blas_;
  int level_;
  std::vector<std::int32_t> nodes_;        // node k: rows nodes_[k] .. nodes_[k+1]-1
  std::vector<std::int32_t> range_nodes_;  // range c: nodes range_nodes_[c] .. range_nodes_[c+1]-1
  int ranges_;
  int largest_node_;
  std::vector<std::int64_t> own_entry_;  // row i's first entry at or right of its node's first column
  std::vector<char> shared_;             // whether node k's rows (more than one) share their columns
  NodeBlockInverse blocks_;              // (B + l1)^-1 per node, dense m x m in its rows' entries
  std::vector<double> start_;            // x as the sweep found it, read across ranges
};

}  // namespace clkr::detail
