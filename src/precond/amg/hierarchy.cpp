// Building and refreshing the smoothed-aggregation hierarchy: strength -> aggregates -> P_tent ->
// smoothed P -> R = P^T -> R A P, level after level, until the coarse size is reached.
#include "hierarchy.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "../../runtime/format_number.hpp"
#include "../../runtime/large_vectors.hpp"
#include "aggregation.hpp"
#include "aggressive_aggregation.hpp"
#include "clkr/runtime/error.hpp"
#include "phase_times.hpp"
#include "setup_errors.hpp"

namespace clkr::detail::amg {
namespace {

std::vector<double> diagonal_of(const HostCsrMatrix& A) {
  std::vector<double> d = large_vector(static_cast<std::size_t>(A.rows), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) d[i] += A.values[k];
  return d;
}

void check_finite(const HostCsrMatrix& A, std::size_t level) {
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (!std::isfinite(A.values[k])) throw nonfinite_error(level, A.values[k], i, A.col_indices[k]);
}

}  // namespace

NodeLayout finest_nodes(const AmgOptions& options, std::int32_t rows) {
  if (options.block_size < 1)
    throw Error("amg: the finest nodes need the block size resolved (block_size = " +
                std::to_string(options.block_size) + "; Amg reads 0 from the pattern)");
  if (options.node_offsets.empty()) return NodeLayout::uniform(rows, options.block_size);
  NodeLayout nodes;
  nodes.offsets = options.node_offsets;
  return nodes;
}

NullSpace near_null_space(const AmgOptions& options, std::int32_t rows) {
  NullSpace B;
  B.rows = rows;
  if (options.near_null_space.empty()) {
    // One vector per position in a node: 1 on the j-th unknown of every node that has j + 1 of them
    // (nodes of block_size: one vector per unknown of a node).
    const NodeLayout nodes = finest_nodes(options, rows);
    B.vectors = nodes.largest();
    B.values.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(B.vectors), 0.0);
    for (std::int32_t k = 0; k < nodes.count(); ++k)
      for (std::int32_t i = nodes.offsets[k]; i < nodes.offsets[k + 1]; ++i)
        B.values[static_cast<std::size_t>(i - nodes.offsets[k]) * rows + i] = 1.0;
    return B;
  }
  B.vectors = static_cast<std::int32_t>(options.near_null_space.size());
  B.values.reserve(static_cast<std::size_t>(rows) * static_cast<std::size_t>(B.vectors));
  for (std::size_t c = 0; c < options.near_null_space.size(); ++c) {
    const std::vector<double>& v = options.near_null_space[c];
    if (v.size() != static_cast<std::size_t>(rows))
      throw Error("amg: near-null-space vector " + std::to_string(c) + " has " + std::to_string(v.size()) +
                  " elements; the matrix has " + std::to_string(rows) + " rows");
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        throw Error("amg: near-null-space vector " + std::to_string(c) + " holds " + format_number(v[i]) +
                    " at element " + std::to_string(i));
    B.values.insert(B.values.end(), v.begin(), v.end());
  }
  return B;
}

void HostHierarchy::check_diagonal(std::size_t l) {
  levels_[l].diagonal = diagonal_of(*levels_[l].A);
  amg::check_diagonal(levels_[l].diagonal, l);
}

HostHierarchy::HostHierarchy(const HostCsrMatrix& A, const AmgOptions& options, NullSpace B, PhaseLog& phases)
    : options_(options) {
  // Reserved up front: levels point at their own Galerkin operator, which must not move.
  levels_.reserve(static_cast<std::size_t>(options.max_levels));
  levels_.emplace_back();
  levels_[0].A = &A;
  levels_[0].nodes = finest_nodes(options, A.rows);
  double eps = options.strength_threshold;
  for (std::size_t l = 0;; ++l) {
    check_diagonal(l);
    const NodeLayout& nodes = levels_[l].nodes;  // levels_ never moves (reserved above)
    const HostCsrMatrix& Al = *levels_[l].A;
    if (Al.rows <= options.coarse_size || static_cast<int>(l) + 1 >= options.max_levels) break;

    auto start = Clock::now();
    StrengthGraph S = strength_of_connection(
        Al, nodes, eps, options.plain_aggregation() ? StrengthOutput::GraphOnly : StrengthOutput::GraphAndFilter);
    phases.add("strength of connection", start);
    start = Clock::now();
    const Aggregates aggregates =
        static_cast<int>(l) < options.aggressive_levels ? aggregate(distance_two_graph(S)) : aggregate(S);
    phases.add("aggregation", start);
    start = Clock::now();
    TentativeProlongator t = tentative_prolongator(nodes, aggregates, B);
    phases.add("tentative prolongator", start);
    const std::int32_t coarse_rows = t.P.cols;
    // No progress: too few unknowns leave the level (or none remain) for another level to pay off.
    if (coarse_rows == 0 || coarse_rows > Al.rows * 0.85) {
      if (Al.rows <= 2 * options.coarse_size) break;  // small enough to solve directly after all
      throw no_progress_error(l, Al.rows, nodes.count(), aggregates.count, coarse_rows, eps);
    }
    HostLevel& level = levels_[l];
    level.keep = std::move(S.keep);
    level.aggregates = aggregates.count;
    start = Clock::now();
    level.smoothed = smooth_prolongator(Al, level.keep, t.P, options.prolongator_relaxation);
    level.tentative = std::move(t.P);
    phases.add("prolongator smoothing", start);
    start = Clock::now();
    level.restriction = transpose(level.smoothed.P);
    phases.add("transpose", start);
    start = Clock::now();
    HostLevel next;
    next.galerkin = triple_product(level.restriction.matrix, Al, level.smoothed.P);
    check_finite(next.galerkin.RAP, l + 1);
    phases.add("galerkin product", start);
    levels_.push_back(std::move(next));
    levels_.back().A = &levels_.back().galerkin.RAP;
    levels_.back().nodes = std::move(t.coarse_nodes);
    B = std::move(t.coarse_space);
    eps *= 0.5;
  }
  check_coarsest(levels_.size() - 1, levels_.back().A->rows, options.max_levels);
  const auto start = Clock::now();
  coarse_ = dense_inverse(*levels_.back().A, static_cast<int>(levels_.size()) - 1);
  phases.add("coarse inverse", start);
}

void HostHierarchy::refresh(const HostCsrMatrix& A, bool prolongators, PhaseLog& phases) {
  levels_[0].A = &A;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    check_diagonal(l);
    if (l + 1 == levels_.size()) break;
    HostLevel& level = levels_[l];
    auto start = Clock::now();
    // A plain-aggregation P depends on the aggregates alone: nothing to re-smooth.
    if (prolongators && !options_.plain_aggregation()) {
      smooth_prolongator_values(*level.A, level.keep, level.tentative, options_.prolongator_relaxation, level.smoothed);
      phases.add("prolongator smoothing", start);
      start = Clock::now();
      transpose_values(level.smoothed.P, level.restriction);
      phases.add("transpose", start);
    }
    start = Clock::now();
    HostLevel& next = levels_[l + 1];
    triple_product_values(level.restriction.matrix, *level.A, level.smoothed.P, next.galerkin);
    check_finite(next.galerkin.RAP, l + 1);
    phases.add("galerkin product", start);
  }
  const auto start = Clock::now();
  coarse_ = dense_inverse(*levels_.back().A, static_cast<int>(levels_.size()) - 1);
  phases.add("coarse inverse", start);
}

}  // namespace clkr::detail::amg
