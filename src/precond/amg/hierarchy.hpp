// The smoothed-aggregation hierarchy on the host: per level the operator, the strength-of-connection
// decisions, the tentative and smoothed prolongators and the restriction R = P^T, down to a coarsest
// operator small enough to invert. refresh() recomputes every value from new fine-level values and
// keeps everything that depends on the pattern only (aggregates, tentative prolongator, the filtered
// pattern, every product's pattern): the update step of a time-stepping code.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/precond/amg.hpp"
#include "coarse_solver.hpp"
#include "nodes.hpp"
#include "phase_times.hpp"
#include "smoothed_prolongator.hpp"
#include "sparse_products.hpp"
#include "strength.hpp"
#include "tentative_prolongator.hpp"

namespace clkr::detail::amg {

struct HostLevel {
  const HostCsrMatrix* A = nullptr;  // level 0: the caller's matrix; below: `galerkin.RAP`
  TripleProduct galerkin;            // R A P of the level above (and its A P)
  std::vector<double> diagonal;
  NodeLayout nodes;  // the level's nodes (aggregated whole; the smoothers' node blocks)
  // What builds the prolongator to the next level (absent on the coarsest).
  std::vector<char> keep;        // the filtered matrix's entries of A (none for plain aggregation)
  HostCsrMatrix tentative;       // P_tent
  SmoothedProlongator smoothed;  // A_F and P
  Transpose restriction;         // R = P^T
  std::int32_t aggregates = 0;
};

// The most unknowns the coarsest level's dense inverse takes (n^2 doubles, n^3 flops to make).
constexpr std::int32_t kMaxDirectRows = 4000;

class HostHierarchy {
 public:
  // Builds the hierarchy for A (kept by reference: it must outlive the hierarchy, or be replaced by
  // refresh()). B is the near-null space. Phases are timed into `phases`.
  HostHierarchy(const HostCsrMatrix& A, const AmgOptions& options, NullSpace B, PhaseLog& phases);

  // New values of the fine operator, on the same pattern: every level's values recomputed; the
  // smoothed prolongators too when `prolongators` (else P and R are kept, and only R A P recomputed).
  void refresh(const HostCsrMatrix& A, bool prolongators, PhaseLog& phases);

  std::size_t size() const { return levels_.size(); }
  const HostLevel& level(std::size_t l) const { return levels_[l]; }
  const DenseInverse& coarsest_inverse() const { return coarse_; }

 private:
  // The diagonal of level l's operator, refused unless positive and finite (naming row and level).
  void check_diagonal(std::size_t l);

  AmgOptions options_;
  std::vector<HostLevel> levels_;
  DenseInverse coarse_;
};

// The near-null space from the options: the given vectors (checked: count, length, finite), or one
// constant per unknown of a node (per position in a node where options.node_offsets gives nodes of
// different sizes: as many vectors as the largest node has unknowns). options.block_size must be
// resolved (>= 1; Amg detects 0), as it must for HostHierarchy, whose finest nodes are node_offsets'
// where given, else block_size's.
NullSpace near_null_space(const AmgOptions& options, std::int32_t rows);

// The finest level's nodes: options.node_offsets where given, else nodes of options.block_size
// (resolved: >= 1).
NodeLayout finest_nodes(const AmgOptions& options, std::int32_t rows);

}  // namespace clkr::detail::amg
