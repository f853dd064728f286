// Strength of connection against a reference that sums each node pair's squares in long double over a
// dense copy: the scalar and block thresholds, the filtered matrix's marks, nodes of several sizes,
// values far past the range where squares overflow or underflow, and the graph-only output.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "amg_test_support.hpp"
#include "clkr/io/generators.hpp"
#include "precond/amg/strength.hpp"

namespace clkr {
namespace {

using detail::amg::NodeLayout;
using detail::amg::StrengthGraph;
using detail::amg::StrengthOutput;

TEST(AmgStrength, ScalarThresholdAndFilteredMask) {
  // Row 0: |a01| = 1 against sqrt(4 * 4) = 4: strong for eps 0.2 (1 > 0.8), weak for eps 0.3 (1 < 1.2).
  // Row 0 to 2: |a02| = 0.1: weak for both.
  HostCsrMatrix A;
  A.rows = A.cols = 3;
  A.row_offsets = {0, 3, 5, 7};
  A.col_indices = {0, 1, 2, 0, 1, 0, 2};
  A.values = {4, -1, -0.1, -1, 4, -0.1, 4};
  A.validate();
  const NodeLayout nodes = NodeLayout::uniform(3, 1);
  const auto strong = detail::amg::strength_of_connection(A, nodes, 0.2);
  EXPECT_EQ(std::vector<std::int32_t>(strong.neighbours.begin() + strong.offsets[0],
                                      strong.neighbours.begin() + strong.offsets[1]),
            std::vector<std::int32_t>{1});
  EXPECT_EQ(strong.offsets[3] - strong.offsets[2], 0);  // node 2 is isolated
  EXPECT_EQ(std::vector<char>(strong.keep.begin(), strong.keep.end()), (std::vector<char>{1, 1, 0, 1, 1, 0, 1}));
  const auto weak = detail::amg::strength_of_connection(A, nodes, 0.3);
  EXPECT_EQ(weak.neighbours.size(), 0u);
}

TEST(AmgStrength, BlocksUseFrobeniusNorms) {
  const HostCsrMatrix A = test::vector_laplacian2d(4);
  const NodeLayout nodes = NodeLayout::uniform(A.rows, 2);
  const auto S = detail::amg::strength_of_connection(A, nodes, 0.08);
  ASSERT_EQ(S.nodes(), 16);
  // Node 5 (interior of the 4x4 grid) couples to its 4 grid neighbours with blocks diag(-1, -1):
  // ||.||_F^2 = 2 against ||[[4.5, .5], [.5, 4.5]]||_F = sqrt(41): weight 2 / 41.
  const std::vector<std::int32_t> neighbours(S.neighbours.begin() + S.offsets[5], S.neighbours.begin() + S.offsets[6]);
  EXPECT_EQ(neighbours, (std::vector<std::int32_t>{1, 4, 6, 9}));
  for (std::int32_t k = S.offsets[5]; k < S.offsets[6]; ++k) EXPECT_NEAR(S.weights[k], 2.0 / 41.0, 1e-14);
}

// SPD by diagonal dominance, nodes of 1-4 unknowns (every unknown of a node coupled to every other),
// each node coupled to a few random others with blocks whose size decides the strength: some far
// below any threshold, some far above, so the reference's verdicts hold with margin.
struct NodeMatrix {
  HostCsrMatrix A;
  NodeLayout nodes;
};

NodeMatrix random_node_matrix(std::int32_t count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  NodeMatrix m;
  m.nodes.offsets = {0};
  for (std::int32_t k = 0; k < count; ++k) m.nodes.offsets.push_back(m.nodes.offsets.back() + 1 + rng() % 4);
  const std::int32_t n = m.nodes.offsets.back();
  std::vector<std::vector<double>> dense(static_cast<std::size_t>(n), std::vector<double>(n, 0.0));
  const std::vector<std::int32_t> node_of = m.nodes.node_of_rows();
  for (std::int32_t I = 0; I < count; ++I) {
    for (int c = 0; c < 3; ++c) {
      const auto J = static_cast<std::int32_t>(rng() % count);
      if (J == I) continue;
      const double size = rng() % 2 == 0 ? 1e-3 : 1.0;
      for (std::int32_t r = m.nodes.offsets[I]; r < m.nodes.offsets[I + 1]; ++r)
        for (std::int32_t s = m.nodes.offsets[J]; s < m.nodes.offsets[J + 1]; ++s)
          dense[r][s] = dense[s][r] = -size * u(rng);
    }
  }
  for (std::int32_t r = 0; r < n; ++r) {
    double off = 0;
    for (std::int32_t s = 0; s < n; ++s) off += std::abs(dense[r][s]);
    for (std::int32_t s = m.nodes.offsets[node_of[r]]; s < m.nodes.offsets[node_of[r] + 1]; ++s)
      if (s != r) dense[r][s] = 0.1;
    dense[r][r] = off + 1.0;
  }
  m.A.rows = m.A.cols = n;
  for (std::int32_t r = 0; r < n; ++r) {
    for (std::int32_t s = 0; s < n; ++s) {
      if (dense[r][s] == 0) continue;
      m.A.col_indices.push_back(s);
      m.A.values.push_back(dense[r][s]);
    }
    m.A.row_offsets.push_back(static_cast<std::int64_t>(m.A.col_indices.size()));
  }
  m.A.validate();
  return m;
}

// The same values with node I's rows and columns scaled by 2^scale[I] (D A D: the strength of every
// connection is unchanged).
HostCsrMatrix scaled_by_node(const NodeMatrix& m, const std::vector<int>& scale) {
  HostCsrMatrix A = m.A;
  const std::vector<std::int32_t> node_of = m.nodes.node_of_rows();
  for (std::int32_t r = 0; r < A.rows; ++r)
    for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k)
      A.values[k] = std::ldexp(A.values[k], scale[node_of[r]] + scale[node_of[A.col_indices[k]]]);
  return A;
}

// ||A_IJ||_F^2 / (||A_II||_F ||A_JJ||_F) for every node pair, in long double.
std::vector<std::vector<long double>> reference_strength(const NodeMatrix& m) {
  const std::int32_t count = m.nodes.count();
  const std::vector<std::int32_t> node_of = m.nodes.node_of_rows();
  std::vector<std::vector<long double>> norm2(static_cast<std::size_t>(count), std::vector<long double>(count, 0.0L));
  for (std::int32_t r = 0; r < m.A.rows; ++r)
    for (std::int64_t k = m.A.row_offsets[r]; k < m.A.row_offsets[r + 1]; ++k)
      norm2[node_of[r]][node_of[m.A.col_indices[k]]] += static_cast<long double>(m.A.values[k]) * m.A.values[k];
  std::vector<std::vector<long double>> s = norm2;
  for (std::int32_t I = 0; I < count; ++I)
    for (std::int32_t J = 0; J < count; ++J) s[I][J] = norm2[I][J] / std::sqrt(norm2[I][I] * norm2[J][J]);
  return s;
}

void expect_reference_graph(const StrengthGraph& S, const NodeMatrix& m, double eps, bool with_marks,
                            const std::string& what) {
  const auto s = reference_strength(m);
  const std::int32_t count = m.nodes.count();
  const std::vector<std::int32_t> node_of = m.nodes.node_of_rows();
  ASSERT_EQ(S.nodes(), count) << what;
  std::size_t strong_pairs = 0;
  for (std::int32_t I = 0; I < count; ++I) {
    std::vector<std::int32_t> expected;
    for (std::int32_t J = 0; J < count; ++J)
      if (J != I && s[I][J] > static_cast<long double>(eps) * eps) expected.push_back(J);
    strong_pairs += expected.size();
    const std::vector<std::int32_t> got(S.neighbours.begin() + S.offsets[I], S.neighbours.begin() + S.offsets[I + 1]);
    ASSERT_EQ(got, expected) << what << ", node " << I;
    for (std::int32_t k = S.offsets[I]; k < S.offsets[I + 1]; ++k)
      EXPECT_NEAR(S.weights[k] / static_cast<double>(s[I][S.neighbours[k]]), 1.0, 1e-13) << what << ", node " << I;
  }
  EXPECT_GT(strong_pairs, 0u) << what;
  if (!with_marks) {
    EXPECT_TRUE(S.keep.empty()) << what;
    return;
  }
  ASSERT_EQ(S.keep.size(), m.A.values.size()) << what;
  std::size_t lumped = 0;
  for (std::int32_t r = 0; r < m.A.rows; ++r)
    for (std::int64_t k = m.A.row_offsets[r]; k < m.A.row_offsets[r + 1]; ++k) {
      const std::int32_t I = node_of[r], J = node_of[m.A.col_indices[k]];
      const bool kept = I == J || s[I][J] > static_cast<long double>(eps) * eps;
      EXPECT_EQ(S.keep[k] != 0, kept) << what << ", entry " << k;
      lumped += kept ? 0 : 1;
    }
  EXPECT_GT(lumped, 0u) << what;
}

TEST(AmgStrength, NodesOfSeveralSizesAgainstTheReference) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const NodeMatrix m = random_node_matrix(60, seed);
    for (double eps : {0.02, 0.08}) {
      const std::string what = "seed " + std::to_string(seed) + ", eps " + std::to_string(eps);
      expect_reference_graph(detail::amg::strength_of_connection(m.A, m.nodes, eps), m, eps, true, what);
      expect_reference_graph(detail::amg::strength_of_connection(m.A, m.nodes, eps, StrengthOutput::GraphOnly), m, eps,
                             false, what + ", graph only");
    }
  }
}

// Node scales of 2^-700 to 2^700 (squares far past double's range both ways) leave every verdict,
// weight and mark as they are on the unscaled matrix.
TEST(AmgStrength, NodeScalesPastTheRangeOfSquares) {
  const NodeMatrix m = random_node_matrix(40, 7);
  std::vector<int> scale(static_cast<std::size_t>(m.nodes.count()));
  for (std::size_t I = 0; I < scale.size(); ++I) scale[I] = static_cast<int>(I % 3) * 350 - 350;
  NodeMatrix scaled{scaled_by_node(m, scale), m.nodes};
  for (double eps : {0.02, 0.08}) {
    const StrengthGraph plain = detail::amg::strength_of_connection(m.A, m.nodes, eps);
    const StrengthGraph S = detail::amg::strength_of_connection(scaled.A, scaled.nodes, eps);
    EXPECT_EQ(S.offsets, plain.offsets);
    EXPECT_EQ(S.neighbours, plain.neighbours);
    EXPECT_EQ(S.keep, plain.keep);
    ASSERT_EQ(S.weights.size(), plain.weights.size());
    for (std::size_t k = 0; k < S.weights.size(); ++k) EXPECT_NEAR(S.weights[k] / plain.weights[k], 1.0, 1e-13);
  }
  // All of it 2^900 and 2^-900 times larger.
  for (int shift : {450, -450}) {
    const std::vector<int> uniform(scale.size(), shift);
    const HostCsrMatrix A = scaled_by_node(m, uniform);
    const StrengthGraph S = detail::amg::strength_of_connection(A, m.nodes, 0.08);
    EXPECT_EQ(S.neighbours, detail::amg::strength_of_connection(m.A, m.nodes, 0.08).neighbours) << shift;
  }
}

TEST(AmgStrength, ScalarGraphOnlyLeavesTheMarksOut) {
  const HostCsrMatrix A = test::jumping_coefficient3d(6, 1e3);
  const NodeLayout nodes = NodeLayout::uniform(A.rows, 1);
  const StrengthGraph full = detail::amg::strength_of_connection(A, nodes, 0.08);
  const StrengthGraph graph = detail::amg::strength_of_connection(A, nodes, 0.08, StrengthOutput::GraphOnly);
  EXPECT_EQ(graph.offsets, full.offsets);
  EXPECT_EQ(graph.neighbours, full.neighbours);
  EXPECT_EQ(graph.weights, full.weights);
  EXPECT_TRUE(graph.keep.empty());
  EXPECT_EQ(full.keep.size(), A.values.size());
}

}  // namespace
}  // namespace clkr
