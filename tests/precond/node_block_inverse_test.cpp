// detail::NodeBlockInverse against a long double reference: each node's block inverted, Gershgorin's
// bound on B^-1 A, nodes whose rows share their columns (read in place) beside others, the refresh,
// the single-unknown case and the blocks it refuses.
#include "precond/node_block_inverse.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "amg_reference_cycle.hpp"
#include "amg_test_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "precond/amg/nodes.hpp"
#include "precond/spectrum.hpp"

namespace clkr {
namespace {

using detail::NodeBlockInverse;
using detail::amg::NodeLayout;
using test::mixed_offsets;
using test::with_coupling;

// The block of A on rows and columns [s, e), dense.
std::vector<long double> block_of(const HostCsrMatrix& A, std::int32_t s, std::int32_t e) {
  const std::int32_t m = e - s;
  std::vector<long double> b(static_cast<std::size_t>(m) * m, 0.0L);
  for (std::int32_t i = s; i < e; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] >= s && A.col_indices[k] < e) b[(i - s) * m + (A.col_indices[k] - s)] = A.values[k];
  return b;
}

// max_i sum_j |(B^-1 A)_ij| in long double from the reference inverse.
long double reference_gershgorin(const HostCsrMatrix& A, const HostCsrMatrix& Binv) {
  long double bound = 0;
  std::vector<long double> row(static_cast<std::size_t>(A.cols));
  for (std::int32_t i = 0; i < A.rows; ++i) {
    std::fill(row.begin(), row.end(), 0.0L);
    for (std::int64_t p = Binv.row_offsets[i]; p < Binv.row_offsets[i + 1]; ++p) {
      const std::int32_t l = Binv.col_indices[p];
      for (std::int64_t k = A.row_offsets[l]; k < A.row_offsets[l + 1]; ++k)
        row[A.col_indices[k]] += static_cast<long double>(Binv.values[p]) * A.values[k];
    }
    long double sum = 0;
    for (long double v : row) sum += std::fabs(v);
    bound = std::max(bound, sum);
  }
  return bound;
}

// B^-1 times each node's block is the identity's rows, B holds exactly the nodes' columns, and the
// Gershgorin bound is the long double reference's.
void expect_inverse_and_bound(const HostCsrMatrix& A, const NodeLayout& nodes, const std::string& what) {
  const NodeBlockInverse blocks(A, nodes.offsets, 2);
  EXPECT_TRUE(blocks.has_blocks()) << what;
  const HostCsrMatrix& B = blocks.matrix();
  ASSERT_EQ(B.rows, A.rows) << what;
  ASSERT_EQ(B.cols, A.rows) << what;
  for (std::int32_t k = 0; k < nodes.count(); ++k) {
    const std::int32_t s = nodes.offsets[k], e = nodes.offsets[k + 1], m = e - s;
    const std::vector<long double> a = block_of(A, s, e);
    for (std::int32_t i = s; i < e; ++i) {
      // The row holds exactly the node's columns, and times the block gives the identity's row.
      ASSERT_EQ(B.row_offsets[i + 1] - B.row_offsets[i], m) << what << ", row " << i;
      for (std::int32_t j = 0; j < m; ++j) {
        ASSERT_EQ(B.col_indices[B.row_offsets[i] + j], s + j) << what << ", row " << i;
        long double product = 0;
        for (std::int32_t l = 0; l < m; ++l) product += B.values[B.row_offsets[i] + l] * a[l * m + j];
        EXPECT_NEAR(static_cast<double>(product), i - s == j ? 1.0 : 0.0, 1e-13) << what << ", node " << k;
      }
    }
  }
  const HostCsrMatrix reference = test::reference_node_block_inverse(A, nodes);
  const long double bound = reference_gershgorin(A, reference);
  EXPECT_NEAR(blocks.gershgorin(), static_cast<double>(bound), 1e-13 * static_cast<double>(bound)) << what;
  EXPECT_GT(blocks.gershgorin(), 1.0) << what;  // B^-1 A's diagonal is 1: every row sum is at least that
}

TEST(NodeBlockInverse, InvertsEveryNodesBlockAndBoundsTheSpectrum) {
  const HostCsrMatrix A = test::vector_laplacian2d(13);  // 338 rows
  NodeLayout nodes;
  nodes.offsets = mixed_offsets(A.rows);
  expect_inverse_and_bound(A, nodes, "mixed nodes");
}

// Nodes whose rows share their columns (elasticity3d's, three unknowns coupled to the same unknowns)
// read A's rows in place; with one entry off the node dropped from every fourth node's first row,
// those nodes take the gathered copy, the others still A's rows: both in one refresh.
TEST(NodeBlockInverse, NodesWhoseRowsShareTheirColumns) {
  const HostCsrMatrix A = load_matrix("elasticity3d:3");
  const NodeLayout nodes = NodeLayout::uniform(A.rows, 3);
  expect_inverse_and_bound(A, nodes, "elasticity3d:3");
  HostCsrMatrix B;
  B.rows = A.rows;
  B.cols = A.cols;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    bool dropped = i % 12 != 0;  // the first row of every fourth node drops its first entry off the node
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t c = A.col_indices[k];
      if (!dropped && c / 3 != i / 3) {
        dropped = true;
        continue;
      }
      B.col_indices.push_back(c);
      B.values.push_back(A.values[k]);
    }
    B.row_offsets.push_back(static_cast<std::int64_t>(B.col_indices.size()));
  }
  B.validate();
  ASSERT_LT(B.nnz(), A.nnz());
  expect_inverse_and_bound(B, nodes, "elasticity3d:3 with entries dropped");
}

// New values: twice A halves the inverse and leaves B^-1 A, and its bound, as they were.
TEST(NodeBlockInverse, RefreshFollowsNewValues) {
  HostCsrMatrix A = test::vector_laplacian2d(9);
  NodeBlockInverse blocks(A, mixed_offsets(A.rows), 0);
  const std::vector<double> before = blocks.matrix().values;
  const double bound = blocks.gershgorin();
  for (double& v : A.values) v *= 2;
  blocks.refresh(A);
  for (std::size_t k = 0; k < before.size(); ++k)
    ASSERT_NEAR(blocks.matrix().values[k], before[k] / 2, 1e-15 * (1 + std::fabs(before[k]))) << "entry " << k;
  EXPECT_NEAR(blocks.gershgorin(), bound, 1e-13 * bound);
}

TEST(NodeBlockInverse, SingleUnknownsAreTheInverseDiagonal) {
  const HostCsrMatrix A = poisson3d(5);
  std::vector<std::int32_t> offsets(static_cast<std::size_t>(A.rows) + 1);
  for (std::int32_t i = 0; i <= A.rows; ++i) offsets[i] = i;
  const NodeBlockInverse blocks(A, offsets, 0);
  EXPECT_FALSE(blocks.has_blocks());
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double diagonal = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) diagonal = A.values[k];
    ASSERT_EQ(blocks.matrix().values[i], 1.0 / diagonal) << "row " << i;
  }
  EXPECT_NEAR(blocks.gershgorin(), detail::gershgorin_bound(A), 1e-14);
}

TEST(NodeBlockInverse, RefusesIndefiniteBlocksAndBadOffsets) {
  const HostCsrMatrix A = with_coupling(6, 7, 10.0);
  const auto fails = [](const auto& make, const std::string& text) {
    try {
      make();
      ADD_FAILURE() << "no error; expected one saying '" << text << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  fails([&] { NodeBlockInverse(A, NodeLayout::uniform(A.rows, 2).offsets, 3); },
        "node blocks (level 3): the diagonal block of node 7 (rows 14..15) is not symmetric positive definite");
  fails([&] { NodeBlockInverse(A, {0, 2}, 0); }, "must run from 0 to the 72 rows");
  fails([&] { NodeBlockInverse(A, {0, 2, 2, 72}, 0); }, "node 1 is empty");
}

}  // namespace
}  // namespace clkr
