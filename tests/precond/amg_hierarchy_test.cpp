// The smoothed-aggregation hierarchy's invariants, checked against independent dense computations:
// aggregates (the strength of connection: amg_strength_test.cpp), the tentative prolongator
// (orthonormal columns, B reproduced), the smoothed prolongator, the Galerkin coarse operators R A P with R = P^T, and
// the update step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>

#include "../precision_support.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "precond/amg/aggregation.hpp"
#include "precond/amg/aggressive_aggregation.hpp"
#include "precond/amg/hierarchy.hpp"
#include "precond/amg/strength.hpp"
#include "precond/amg/tentative_prolongator.hpp"

namespace clkr {
namespace {

using detail::amg::HostHierarchy;
using detail::amg::NodeLayout;
using test::Dense;

// Every node with a strong neighbour belongs to an aggregate, the others to none, and every aggregate
// is connected through strong connections.
void expect_valid_aggregates(const detail::amg::StrengthGraph& S, const detail::amg::Aggregates& aggregates) {
  std::vector<std::vector<std::int32_t>> members(static_cast<std::size_t>(aggregates.count));
  for (std::int32_t i = 0; i < S.nodes(); ++i) {
    const bool isolated = S.offsets[i] == S.offsets[i + 1];
    const std::int32_t a = aggregates.of_node[i];
    if (isolated) {
      EXPECT_EQ(a, -1) << "isolated node " << i;
    } else {
      ASSERT_GE(a, 0) << "node " << i << " left out";
      ASSERT_LT(a, aggregates.count);
      members[a].push_back(i);
    }
  }
  for (std::int32_t a = 0; a < aggregates.count; ++a) {
    ASSERT_FALSE(members[a].empty()) << "aggregate " << a << " is empty";
    std::set<std::int32_t> reached{members[a][0]};
    std::queue<std::int32_t> next;
    next.push(members[a][0]);
    while (!next.empty()) {
      const std::int32_t i = next.front();
      next.pop();
      for (std::int32_t k = S.offsets[i]; k < S.offsets[i + 1]; ++k) {
        const std::int32_t j = S.neighbours[k];
        if (aggregates.of_node[j] == a && reached.insert(j).second) next.push(j);
      }
    }
    EXPECT_EQ(reached.size(), members[a].size()) << "aggregate " << a << " is not connected";
  }
}

TEST(AmgAggregation, CoversConnectedNodesWithConnectedAggregates) {
  for (const HostCsrMatrix& A : {poisson2d(17), poisson3d(9), test::jumping_coefficient3d(8, 1e3)}) {
    const auto S = detail::amg::strength_of_connection(A, NodeLayout::uniform(A.rows, 1), 0.08);
    const auto aggregates = detail::amg::aggregate(S);
    expect_valid_aggregates(S, aggregates);
    // Stars of a root and its neighbours: far fewer aggregates than nodes.
    EXPECT_LT(aggregates.count * 3, A.rows);
  }
}

TEST(AmgAggressiveAggregation, DistanceTwoGraphByHand) {
  // A path 0 - 1 - 2 - 3 - 4 with weights 0.5 on every connection.
  detail::amg::StrengthGraph S;
  S.offsets = {0, 1, 3, 5, 7, 8};
  S.neighbours = {1, 0, 2, 1, 3, 2, 4, 3};
  S.weights.assign(8, 0.5);
  const auto S2 = detail::amg::distance_two_graph(S);
  ASSERT_EQ(S2.nodes(), 5);
  auto ring = [&](std::int32_t i) {
    return std::vector<std::int32_t>(S2.neighbours.begin() + S2.offsets[i], S2.neighbours.begin() + S2.offsets[i + 1]);
  };
  EXPECT_EQ(ring(0), (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(ring(2), (std::vector<std::int32_t>{0, 1, 3, 4}));
  EXPECT_EQ(ring(4), (std::vector<std::int32_t>{2, 3}));
  // Direct neighbours weigh more (0.5 + 1) than neighbours' neighbours (0.5 * 0.5).
  EXPECT_EQ(std::vector<double>(S2.weights.begin() + S2.offsets[2], S2.weights.begin() + S2.offsets[3]),
            (std::vector<double>{0.25, 1.5, 1.5, 0.25}));
}

TEST(AmgAggressiveAggregation, LargerAggregatesConnectedInTheTwoRingGraph) {
  for (const HostCsrMatrix& A : {poisson2d(17), poisson3d(9), test::jumping_coefficient3d(8, 1e3)}) {
    const auto S = detail::amg::strength_of_connection(A, NodeLayout::uniform(A.rows, 1), 0.08);
    const auto S2 = detail::amg::distance_two_graph(S);
    const auto plain = detail::amg::aggregate(S), aggressive = detail::amg::aggregate(S2);
    expect_valid_aggregates(S2, aggressive);
    EXPECT_LT(2 * aggressive.count, plain.count) << A.rows << " rows";
  }
}

TEST(AmgTentativeProlongator, OrthonormalColumnsThatReproduceTheNearNullSpace) {
  const HostCsrMatrix A = test::vector_laplacian2d(9);
  const NodeLayout nodes = NodeLayout::uniform(A.rows, 2);
  const auto S = detail::amg::strength_of_connection(A, nodes, 0.08);
  const auto aggregates = detail::amg::aggregate(S);
  // Three near-null-space vectors for blocks of two unknowns: rank deficiency on a one-node aggregate.
  AmgOptions options;
  options.block_size = 2;
  options.near_null_space = {test::random_values(A.rows, 1), test::random_values(A.rows, 2),
                             test::random_values(A.rows, 3)};
  const auto B = detail::amg::near_null_space(options, A.rows);
  const auto t = detail::amg::tentative_prolongator(nodes, aggregates, B);
  const Dense P = test::dense(t.P);
  // P^T P = I: orthonormal, hence full column rank.
  const Dense PtP = test::multiply(test::transposed(P), P);
  for (std::int32_t i = 0; i < PtP.rows; ++i)
    for (std::int32_t j = 0; j < PtP.cols; ++j) ASSERT_NEAR(static_cast<double>(PtP(i, j)), i == j ? 1.0 : 0.0, 1e-13);
  // P B_c = B on every aggregated row; each coarse node is one aggregate with at most 3 unknowns.
  EXPECT_EQ(t.coarse_nodes.count(), aggregates.count);
  for (std::int32_t a = 0; a < aggregates.count; ++a)
    EXPECT_LE(t.coarse_nodes.offsets[a + 1] - t.coarse_nodes.offsets[a], 3);
  for (std::int32_t c = 0; c < 3; ++c)
    for (std::int32_t i = 0; i < A.rows; ++i) {
      long double sum = 0;
      for (std::int32_t k = t.P.row_offsets[i]; k < t.P.row_offsets[i + 1]; ++k)
        sum += t.P.values[k] * t.coarse_space.at(t.P.col_indices[k], c);
      if (aggregates.of_node[i / 2] >= 0) ASSERT_NEAR(static_cast<double>(sum), B.at(i, c), 1e-12) << i << " " << c;
    }
}

// One level's smoothed prolongator and the next level's operator, recomputed densely.
void expect_level_consistent(const HostHierarchy& h, std::size_t l, const AmgOptions& options) {
  const auto& level = h.level(l);
  const HostCsrMatrix& A = *level.A;
  if (options.prolongator_relaxation == 0) {
    // Plain aggregation: P is the tentative prolongator, entry for entry, and no A_F was made.
    EXPECT_EQ(level.smoothed.P.row_offsets, level.tentative.row_offsets) << "level " << l;
    EXPECT_EQ(level.smoothed.P.col_indices, level.tentative.col_indices) << "level " << l;
    EXPECT_EQ(level.smoothed.P.values, level.tentative.values) << "level " << l;
    EXPECT_EQ(level.smoothed.filtered.rows, 0) << "level " << l;
    const Dense P = test::dense(level.tentative);
    EXPECT_LT(test::relative_difference(test::dense(level.restriction.matrix), test::transposed(P)), 1e-15);
    const Dense RAP = test::multiply(test::transposed(P), test::multiply(test::dense(A), P));
    EXPECT_LT(test::relative_difference(test::dense(*h.level(l + 1).A), RAP), 1e-12) << "level " << l + 1;
    return;
  }
  // A_F: A's weak entries lumped onto the diagonal (row sums kept).
  Dense F(A.rows, A.cols);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      F(i, level.keep[k] ? A.col_indices[k] : i) += A.values[k];
  EXPECT_LT(test::relative_difference(test::dense(level.smoothed.filtered), F), 1e-15);
  long double rho = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double sum = 0;
    for (std::int32_t j = 0; j < A.cols; ++j) sum += std::abs(F(i, j));
    rho = std::max(rho, sum / F(i, i));
  }
  const long double omega = options.prolongator_relaxation * (4.0L / 3.0L) / rho;
  // P = (I - omega D_F^-1 A_F) P_tent
  const Dense T = test::dense(level.tentative);
  const Dense FT = test::multiply(F, T);
  Dense P = T;
  for (std::int32_t i = 0; i < P.rows; ++i)
    for (std::int32_t j = 0; j < P.cols; ++j) P(i, j) -= omega / F(i, i) * FT(i, j);
  EXPECT_LT(test::relative_difference(test::dense(level.smoothed.P), P), 1e-13) << "level " << l;
  // R = P^T and the Galerkin operator R A P.
  EXPECT_LT(test::relative_difference(test::dense(level.restriction.matrix), test::transposed(P)), 1e-13);
  const Dense RAP = test::multiply(test::transposed(P), test::multiply(test::dense(A), P));
  EXPECT_LT(test::relative_difference(test::dense(*h.level(l + 1).A), RAP), 1e-12) << "level " << l + 1;
}

// A scalar 2D and a jumping-coefficient 3D problem, and a 2D vector Laplacian of two unknowns a node.
struct GalerkinCase {
  HostCsrMatrix A;
  int block_size;
};
std::vector<GalerkinCase> galerkin_cases() {
  return {{poisson2d(23), 1}, {test::jumping_coefficient3d(9, 100.0), 1}, {test::vector_laplacian2d(14), 2}};
}

TEST(AmgHierarchy, CoarseOperatorsAreGalerkinProducts) {
  for (const GalerkinCase& c : galerkin_cases()) {
    AmgOptions options;
    options.coarse_size = 20;
    options.block_size = c.block_size;
    PhaseTimes times;
    detail::amg::PhaseLog phases(times);
    const HostHierarchy h(c.A, options, detail::amg::near_null_space(options, c.A.rows), phases);
    ASSERT_GE(h.size(), 3u);
    for (std::size_t l = 0; l + 1 < h.size(); ++l) expect_level_consistent(h, l, options);
    EXPECT_LE(h.level(h.size() - 1).A->rows, options.coarse_size);
    // The coarsest inverse is the inverse.
    const Dense X = test::dense(h.coarsest_inverse().inverse), C = test::dense(*h.level(h.size() - 1).A);
    const Dense I = test::multiply(C, X);
    for (std::int32_t i = 0; i < I.rows; ++i)
      for (std::int32_t j = 0; j < I.cols; ++j) ASSERT_NEAR(static_cast<double>(I(i, j)), i == j, 1e-10);
    for (const auto& [phase, seconds] : times) EXPECT_GE(seconds, 0) << phase;
  }
}

// Plain aggregation (prolongator_relaxation = 0) is the same hierarchy without the smoothing step: the
// same aggregates, P = P_tent, Galerkin operators from it, sparser than smoothed aggregation's (the
// reason to pick it), and a refresh that recomputes the operators but leaves P alone.
TEST(AmgHierarchy, PlainAggregationTakesTheTentativeProlongatorItself) {
  for (const GalerkinCase& c : galerkin_cases()) {
    AmgOptions smoothed_options, plain_options;
    smoothed_options.coarse_size = plain_options.coarse_size = 20;
    smoothed_options.block_size = plain_options.block_size = c.block_size;
    plain_options.prolongator_relaxation = 0;
    PhaseTimes times;
    detail::amg::PhaseLog phases(times);
    const HostHierarchy smoothed(c.A, smoothed_options, detail::amg::near_null_space(smoothed_options, c.A.rows),
                                 phases);
    HostHierarchy plain(c.A, plain_options, detail::amg::near_null_space(plain_options, c.A.rows), phases);
    ASSERT_GE(plain.size(), 3u);
    EXPECT_EQ(plain.level(1).A->rows, smoothed.level(1).A->rows);  // the same aggregates on level 0
    // One entry per aggregated row (a constant per unknown of a node: one vector per unknown).
    EXPECT_LE(plain.level(0).smoothed.P.values.size(), static_cast<std::size_t>(c.A.rows));
    for (std::size_t l = 0; l + 1 < plain.size(); ++l) expect_level_consistent(plain, l, plain_options);
    EXPECT_LT(plain.level(1).A->values.size(), smoothed.level(1).A->values.size());
    // New values on the same pattern: the operators follow them, P stays the tentative prolongator.
    HostCsrMatrix changed = c.A;
    const std::vector<double> u = test::random_values(c.A.rows, 4);
    for (std::int32_t i = 0; i < c.A.rows; ++i)
      for (std::int32_t k = c.A.row_offsets[i]; k < c.A.row_offsets[i + 1]; ++k)
        changed.values[k] *= 1.0 + 0.3 * u[i] * u[c.A.col_indices[k]] + (c.A.col_indices[k] == i ? 0.5 : 0.0);
    plain.refresh(changed, true, phases);
    for (std::size_t l = 0; l + 1 < plain.size(); ++l) expect_level_consistent(plain, l, plain_options);
  }
}

TEST(AmgHierarchy, RefreshRecomputesEveryLevelOnTheKeptPatterns) {
  // New values on the same pattern (a time step): a symmetric, diagonally dominant perturbation of A.
  // The refresh keeps every pattern (aggregates, the filtered pattern, the products') and must leave
  // each level consistent with the new values: A_F, omega, P and R A P recomputed.
  const HostCsrMatrix A = test::jumping_coefficient3d(10, 50.0);
  AmgOptions options;
  options.coarse_size = 30;
  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  HostHierarchy h(A, options, detail::amg::near_null_space(options, A.rows), phases);
  std::vector<std::vector<std::int32_t>> patterns;
  for (std::size_t l = 0; l < h.size(); ++l) patterns.push_back(h.level(l).A->col_indices);
  HostCsrMatrix changed = A;
  const std::vector<double> u = test::random_values(A.rows, 9);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      changed.values[k] *= 1.0 + 0.3 * u[i] * u[A.col_indices[k]] + (A.col_indices[k] == i ? 0.5 : 0.0);
  h.refresh(changed, true, phases);
  ASSERT_EQ(h.level(0).A, &changed);
  for (std::size_t l = 0; l < h.size(); ++l) EXPECT_EQ(h.level(l).A->col_indices, patterns[l]) << "level " << l;
  for (std::size_t l = 0; l + 1 < h.size(); ++l) expect_level_consistent(h, l, options);
  const Dense X = test::dense(h.coarsest_inverse().inverse), C = test::dense(*h.level(h.size() - 1).A);
  const Dense I = test::multiply(C, X);
  for (std::int32_t i = 0; i < I.rows; ++i)
    for (std::int32_t j = 0; j < I.cols; ++j) ASSERT_NEAR(static_cast<double>(I(i, j)), i == j, 1e-10);
}

TEST(AmgHierarchy, ScalingByTwoScalesEveryCoarseOperatorExactly) {
  const HostCsrMatrix A = poisson3d(11);
  AmgOptions options;
  options.coarse_size = 40;
  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  HostHierarchy h(A, options, detail::amg::near_null_space(options, A.rows), phases);
  std::vector<std::vector<double>> before;
  for (std::size_t l = 0; l < h.size(); ++l) before.push_back(h.level(l).A->values);
  HostCsrMatrix doubled = A;
  for (double& v : doubled.values) v *= 2;
  h.refresh(doubled, true, phases);
  for (std::size_t l = 1; l < h.size(); ++l)
    for (std::size_t k = 0; k < before[l].size(); ++k) ASSERT_EQ(h.level(l).A->values[k], 2 * before[l][k]);
}

TEST(AmgHierarchy, RefusesWhatCannotBeBuilt) {
  auto expect_error = [](const HostCsrMatrix& A, const AmgOptions& options, const std::string& words) {
    PhaseTimes times;
    detail::amg::PhaseLog phases(times);
    try {
      HostHierarchy h(A, options, detail::amg::near_null_space(options, A.rows), phases);
      FAIL() << "built: expected an error mentioning '" << words << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  AmgOptions options;
  options.coarse_size = 10;
  HostCsrMatrix negative = poisson2d(12);
  for (std::int32_t k = negative.row_offsets[17]; k < negative.row_offsets[18]; ++k)
    if (negative.col_indices[k] == 17) negative.values[k] = -4;
  expect_error(negative, options, "A(17,17) = -4");
  // A nearly diagonal matrix: every connection weak, nothing to aggregate, too big to invert.
  expect_error(test::weakly_connected_poisson2d(80), options, "no progress on level 0");
  // Values whose Galerkin product overflows.
  AmgOptions overflow = options;
  overflow.coarse_size = 1;
  overflow.strength_threshold = 0.01;
  expect_error(test::overflowing_galerkin_matrix(), overflow, "coarse operator of level 1 holds inf");
  // Near-null-space vectors of the wrong length, or not finite.
  AmgOptions bad = options;
  bad.near_null_space = {std::vector<double>(5, 1.0)};
  expect_error(poisson2d(12), bad, "near-null-space vector 0 has 5 elements");
  bad.near_null_space = {std::vector<double>(144, 1.0)};
  bad.near_null_space[0][7] = std::nan("");
  expect_error(poisson2d(12), bad, "element 7");
  // max_levels reached with a coarsest level too large to invert.
  AmgOptions shallow = options;
  shallow.max_levels = 1;
  expect_error(poisson2d(70), shallow, "max_levels = 1");
}

// aggressive_levels = 1: the first level aggregates on the two-ring graph; the hierarchy keeps every
// invariant, has fewer coarse rows and nonzeros, and the operator complexity Amg reports is the sum of
// the levels' nonzeros over A's.
TEST(AmgAggressiveAggregation, HierarchyInvariantsAndLowerComplexity) {
  const HostCsrMatrix A = poisson3d(14);
  AmgOptions options;
  options.coarse_size = 20;
  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const HostHierarchy plain(A, options, detail::amg::near_null_space(options, A.rows), phases);
  options.aggressive_levels = 1;
  const HostHierarchy aggressive(A, options, detail::amg::near_null_space(options, A.rows), phases);
  ASSERT_GE(aggressive.size(), 3u);
  for (std::size_t l = 0; l + 1 < aggressive.size(); ++l) expect_level_consistent(aggressive, l, options);
  EXPECT_LT(2 * aggressive.level(1).A->rows, plain.level(1).A->rows);
  EXPECT_LT(2 * aggressive.level(1).A->nnz(), plain.level(1).A->nnz());

  auto context = test::amg_context();
  if (!test::device_supports(*context, Precision::Double)) return;
  Matrix M(context, A);
  Blas blas(context, Location::Device, Precision::Double);
  Amg amg(blas, M, options);
  double nnz = 0;
  for (const AmgLevelInfo& level : amg.levels()) nnz += static_cast<double>(level.nnz);
  EXPECT_DOUBLE_EQ(amg.operator_complexity(), nnz / static_cast<double>(A.nnz()));
  options.aggressive_levels = 0;
  Amg default_amg(blas, M, options);
  EXPECT_LT(amg.operator_complexity(), default_amg.operator_complexity() - 0.2);
  // The price: more iterations, within 1.5x of the default's here (12 -> 15 on poisson3d:64).
  Vector b(context, std::vector<double>(A.rows, 1.0), "b"), x1(context, A.rows, "x1"), x2(context, A.rows, "x2");
  const SolveResult r_aggressive = cg(blas, M, amg, b, x1), r_default = cg(blas, M, default_amg, b, x2);
  ASSERT_TRUE(r_aggressive.converged()) << r_aggressive.message;
  EXPECT_LE(r_aggressive.iterations, 1.5 * r_default.iterations);
  options.aggressive_levels = -1;
  EXPECT_THROW(Amg bad(blas, M, options), Error);
}

}  // namespace
}  // namespace clkr
