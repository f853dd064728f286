// Nodes of different sizes: AmgOptions::node_offsets, given or read from the pattern where no fixed
// block size fits (detail::amg::detect_variable_nodes, block_size 0). A mesh whose nodes lost some of
// their unknowns gives back its nodes exactly; stencils, banded matrices, lone rows and inconsistent
// groups give none; the near-null space has a vector per position in a node and the tentative
// prolongator reproduces it with whole nodes in each aggregate; Amg reports the nodes and takes fewer
// iterations with them; bad offsets are refused, and the device setup leaves them to the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "../test_matrices.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "precond/amg/block_size.hpp"
#include "precond/amg/hierarchy.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

using detail::amg::detect_block_size;
using detail::amg::detect_variable_nodes;

// A matrix without the unknowns `dropped` (rows and columns), which must be ascending.
HostCsrMatrix without(const HostCsrMatrix& A, const std::vector<std::int32_t>& dropped) {
  std::vector<std::int32_t> renumbered(static_cast<std::size_t>(A.rows), -1);
  std::int32_t next = 0;
  std::size_t d = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    if (d < dropped.size() && dropped[d] == i) {
      ++d;
      continue;
    }
    renumbered[i] = next++;
  }
  HostCsrMatrix B;
  B.rows = B.cols = next;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    if (renumbered[i] < 0) continue;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      if (renumbered[A.col_indices[k]] < 0) continue;
      B.col_indices.push_back(renumbered[A.col_indices[k]]);
      B.values.push_back(A.values[k]);
    }
    B.row_offsets.push_back(static_cast<std::int64_t>(B.col_indices.size()));
  }
  B.validate();
  return B;
}

// Six unknowns on every node of an n x n grid, coupled by C (1 on the diagonal, 0.3 off it) to those of
// the four neighbouring nodes: node block (i, j) = -C, (i, i) = (neighbours of i) C + 1e-3 I, so that
// the six vectors constant on one position of every node are nearly in the null space, as rigid-body
// translations are in elasticity. Then the first grid line clamped (its nodes keep their last three
// unknowns) and one unknown of every seventh node constrained besides; with the nodes this leaves.
struct ConstrainedMesh {
  HostCsrMatrix A;
  std::vector<std::int32_t> node_offsets{0};
};

ConstrainedMesh constrained_mesh(int n) {
  HostCsrMatrix full;
  full.rows = full.cols = n * n * 6;
  for (std::int32_t node = 0; node < n * n; ++node) {
    const int x = node % n, y = node / n;
    std::vector<std::int32_t> neighbours;
    if (y > 0) neighbours.push_back(node - n);
    if (x > 0) neighbours.push_back(node - 1);
    if (x + 1 < n) neighbours.push_back(node + 1);
    if (y + 1 < n) neighbours.push_back(node + n);
    std::vector<std::int32_t> coupled = neighbours;
    coupled.push_back(node);
    std::sort(coupled.begin(), coupled.end());
    const double degree = static_cast<double>(neighbours.size());
    for (int c = 0; c < 6; ++c) {
      for (std::int32_t other : coupled)
        for (int d = 0; d < 6; ++d) {
          const double C = c == d ? 1.0 : 0.3;
          full.col_indices.push_back(other * 6 + d);
          full.values.push_back(other == node ? degree * C + (c == d ? 1e-3 : 0.0) : -C);
        }
      full.row_offsets.push_back(static_cast<std::int64_t>(full.col_indices.size()));
    }
  }
  full.validate();
  std::vector<std::int32_t> dropped;
  ConstrainedMesh mesh;
  for (std::int32_t node = 0; node < n * n; ++node) {
    std::int32_t kept = 6;
    for (std::int32_t c = 0; c < 6; ++c) {
      const bool clamped = node < n && c < 3, constrained = node % 7 == 3 && c == (node / 7) % 6;
      if (clamped || constrained) {
        dropped.push_back(node * 6 + c);
        --kept;
      }
    }
    mesh.node_offsets.push_back(mesh.node_offsets.back() + kept);
  }
  mesh.A = without(full, dropped);
  return mesh;
}

TEST(AmgVariableNodes, DetectsTheNodesOfAMeshWithConstrainedUnknowns) {
  // 30 x 30 nodes: 157 k entries, past the size from which the detection's passes run on all cores.
  for (int n : {9, 16, 30}) {
    const ConstrainedMesh mesh = constrained_mesh(n);
    // Pairs of rows may pass as fixed nodes of 2 (a node's pairs couple to the same pairs where the
    // constrained unknowns leave node ends aligned); the nodes found are larger (Amg takes them).
    EXPECT_LE(detect_block_size(mesh.A), 2) << n;
    const auto nodes = detect_variable_nodes(mesh.A);
    ASSERT_TRUE(nodes.has_value()) << n;
    EXPECT_EQ(nodes->offsets, mesh.node_offsets) << n;
  }
}

// A diagonal block per row group of `sizes` (in turn), rows of a group coupled to each other only:
// consistent and full, but for the group sizes.
HostCsrMatrix groups_of(const std::vector<std::int32_t>& sizes, std::int32_t count) {
  HostCsrMatrix A;
  std::int32_t first = 0;
  for (std::int32_t g = 0; g < count; ++g) {
    const std::int32_t size = sizes[static_cast<std::size_t>(g) % sizes.size()];
    for (std::int32_t i = 0; i < size; ++i) {
      for (std::int32_t j = 0; j < size; ++j) {
        A.col_indices.push_back(first + j);
        A.values.push_back(i == j ? 4.0 : -0.5);
      }
      A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
    }
    first += size;
  }
  A.rows = A.cols = first;
  A.validate();
  return A;
}

// Past 4096 neighbouring pairs the detection first samples that many: too few alike ones (fewer than
// half, where nodes of 3 rows on average need 2/3) end it; enough go on to the whole pass, which
// decides as before. 18,000 rows each time.
TEST(AmgVariableNodes, SampledPairsFirstOnLargeMatrices) {
  const auto three = detect_variable_nodes(groups_of({3}, 6000));
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ(three->count(), 6000);
  EXPECT_TRUE(detect_variable_nodes(groups_of({2, 4}, 3000)).has_value());   // 2/3 of the pairs alike
  EXPECT_FALSE(detect_variable_nodes(groups_of({1, 2}, 6000)).has_value());  // 1/3: the sample stops it
  EXPECT_FALSE(detect_variable_nodes(groups_of({2, 3}, 3600)).has_value());  // 3/5: the whole pass does
  EXPECT_FALSE(detect_variable_nodes(poisson3d(27)).has_value());            // 19,683 rows of a stencil
}

TEST(AmgVariableNodes, StencilsBandsAndLoneRowsGiveNone) {
  EXPECT_FALSE(detect_variable_nodes(poisson2d(12)).has_value());
  EXPECT_FALSE(detect_variable_nodes(poisson3d(8)).has_value());
  EXPECT_FALSE(detect_variable_nodes(test::jumping_coefficient3d(6, 100.0)).has_value());
  // A band of half-width 4: neighbouring rows share 8 of 10 columns, but a group's rows reach
  // different groups at its ends: not nodes.
  HostCsrMatrix band;
  band.rows = band.cols = 200;
  for (std::int32_t i = 0; i < band.rows; ++i) {
    for (std::int32_t j = std::max(0, i - 4); j <= std::min(band.rows - 1, i + 4); ++j) {
      band.col_indices.push_back(j);
      band.values.push_back(i == j ? 10.0 : -1.0);
    }
    band.row_offsets.push_back(static_cast<std::int64_t>(band.col_indices.size()));
  }
  EXPECT_FALSE(detect_variable_nodes(band).has_value());
  EXPECT_FALSE(detect_variable_nodes(groups_of({1}, 50)).has_value());     // a diagonal matrix
  EXPECT_FALSE(detect_variable_nodes(groups_of({2, 3}, 40)).has_value());  // 2.5 rows a node on average
  EXPECT_TRUE(detect_variable_nodes(groups_of({2, 4}, 40)).has_value());   // 3: the mean needed
  EXPECT_FALSE(detect_variable_nodes(HostCsrMatrix{}).has_value());
  // Nodes of more than kMaxDetectedBlock rows are cut at that many.
  const auto cut = detect_variable_nodes(groups_of({12}, 10));
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->offsets[1], detail::amg::kMaxDetectedBlock);
}

// The nodes of the constrained mesh, spoiled: in a share of them one row loses its couplings to one
// neighbouring node, so that rows of a node reach different nodes. Below kDetectedBlockShare consistent
// nodes, none are returned.
TEST(AmgVariableNodes, InconsistentNodesGiveNone) {
  const ConstrainedMesh mesh = constrained_mesh(12);
  for (const double spoiled : {0.1, 0.35}) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0, 1);
    const std::vector<std::int32_t>& offsets = mesh.node_offsets;
    std::vector<std::int32_t> node_of(static_cast<std::size_t>(mesh.A.rows));
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
      for (std::int32_t r = offsets[k]; r < offsets[k + 1]; ++r) node_of[r] = static_cast<std::int32_t>(k);
    HostCsrMatrix B;
    B.rows = B.cols = mesh.A.rows;
    std::vector<std::int32_t> spoiled_row(offsets.size(), -1);
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
      if (u(rng) < spoiled) spoiled_row[k] = offsets[k + 1] - 1;
    for (std::int32_t i = 0; i < B.rows; ++i) {
      std::int32_t lost = -1;  // the last other node this row reaches, when the row is spoiled
      if (spoiled_row[node_of[i]] == i)
        for (std::int64_t k = mesh.A.row_offsets[i]; k < mesh.A.row_offsets[i + 1]; ++k)
          if (node_of[mesh.A.col_indices[k]] != node_of[i]) lost = node_of[mesh.A.col_indices[k]];
      for (std::int64_t k = mesh.A.row_offsets[i]; k < mesh.A.row_offsets[i + 1]; ++k) {
        if (lost >= 0 && node_of[mesh.A.col_indices[k]] == lost) continue;
        B.col_indices.push_back(mesh.A.col_indices[k]);
        B.values.push_back(mesh.A.values[k]);
      }
      B.row_offsets.push_back(static_cast<std::int64_t>(B.col_indices.size()));
    }
    B.validate();
    EXPECT_EQ(detect_variable_nodes(B).has_value(), spoiled < 1 - detail::amg::kDetectedBlockShare) << spoiled;
  }
}

TEST(AmgVariableNodes, NearNullSpaceHasAVectorPerPositionInANode) {
  AmgOptions options;
  options.node_offsets = {0, 3, 4, 9, 11};
  const detail::amg::NullSpace B = detail::amg::near_null_space(options, 11);
  ASSERT_EQ(B.vectors, 5);
  for (std::size_t k = 0; k + 1 < options.node_offsets.size(); ++k)
    for (std::int32_t r = options.node_offsets[k]; r < options.node_offsets[k + 1]; ++r)
      for (std::int32_t c = 0; c < B.vectors; ++c)
        EXPECT_EQ(B.at(r, c), c == r - options.node_offsets[k] ? 1.0 : 0.0) << "row " << r << ", vector " << c;
}

// Level 0 of a hierarchy on the constrained mesh's nodes: each node's rows fall in one aggregate (every
// column of their rows of P_tent belongs to the same coarse node: P_tent stores no exact zeros, so the
// rows of one node have different columns), and P_tent P_tent^T B = B (B lies in P_tent's range).
TEST(AmgVariableNodes, AggregatesHoldWholeNodesAndReproduceTheNearNullSpace) {
  const ConstrainedMesh mesh = constrained_mesh(12);
  AmgOptions options;
  options.node_offsets = mesh.node_offsets;
  options.coarse_size = 40;
  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const detail::amg::NullSpace B = detail::amg::near_null_space(options, mesh.A.rows);
  const detail::amg::HostHierarchy h(mesh.A, options, B, phases);
  ASSERT_GE(h.size(), 2u);
  const HostCsrMatrix& P = h.level(0).tentative;
  const std::vector<std::int32_t>& coarse_offsets = h.level(1).nodes.offsets;
  ASSERT_EQ(coarse_offsets.back(), P.cols);
  auto coarse_node_of = [&](std::int32_t column) {
    return static_cast<std::int32_t>(std::upper_bound(coarse_offsets.begin(), coarse_offsets.end(), column) -
                                     coarse_offsets.begin()) -
           1;
  };
  for (std::size_t k = 0; k + 1 < mesh.node_offsets.size(); ++k) {
    const std::int32_t first = mesh.node_offsets[k];
    ASSERT_GT(P.row_offsets[first + 1], P.row_offsets[first]) << "node " << k;
    const std::int32_t aggregate = coarse_node_of(P.col_indices[P.row_offsets[first]]);
    for (std::int32_t r = first; r < mesh.node_offsets[k + 1]; ++r) {
      EXPECT_EQ(P.row_offsets[r + 1] - P.row_offsets[r], 1) << "node " << k << ", row " << r;  // one unknown's constant
      for (std::int64_t e = P.row_offsets[r]; e < P.row_offsets[r + 1]; ++e)
        EXPECT_EQ(coarse_node_of(P.col_indices[e]), aggregate) << "node " << k << ", row " << r;
    }
  }
  for (std::int32_t c = 0; c < B.vectors; ++c) {
    std::vector<long double> coarse(static_cast<std::size_t>(P.cols), 0.0L);
    for (std::int32_t i = 0; i < P.rows; ++i)
      for (std::int64_t k = P.row_offsets[i]; k < P.row_offsets[i + 1]; ++k)
        coarse[P.col_indices[k]] += P.values[k] * B.at(i, c);
    for (std::int32_t i = 0; i < P.rows; ++i) {
      long double back = 0;
      for (std::int64_t k = P.row_offsets[i]; k < P.row_offsets[i + 1]; ++k)
        back += P.values[k] * coarse[P.col_indices[k]];
      ASSERT_NEAR(static_cast<double>(back), B.at(i, c), 1e-12) << "vector " << c << ", row " << i;
    }
  }
}

class AmgOnVariableNodes : public ::testing::Test {
 protected:
  void SetUp() override { CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double); }
  // CG with M on b = ones to 1e-8; its iterations.
  int iterations(Blas& blas, Matrix& A, Amg& M) { return test::pcg_iterations_on_ones(blas, A, M); }
  std::shared_ptr<Context> context = test::amg_context();
};

// block_size 0 reads the nodes under the host and the automatic setup (on a GPU too, where they move the
// setup to the host as blocks do), reports them, and solves in fewer iterations than with single
// unknowns; the device setup (asked for) keeps single unknowns; given node offsets send the setup to the
// host, with the reason.
TEST_F(AmgOnVariableNodes, ReadFromThePatternReportedAndFewerIterations) {
  const ConstrainedMesh mesh = constrained_mesh(16);
  Matrix A(context, mesh.A);
  Blas blas(context, Location::Device, Precision::Double);
  AmgOptions options;
  options.coarse_size = 60;
  options.block_size = 0;
  options.setup_on = AmgOptions::SetupOn::Host;
  Amg nodes(blas, A, options);
  EXPECT_EQ(nodes.options().node_offsets, mesh.node_offsets);
  EXPECT_EQ(nodes.options().block_size, 1);
  EXPECT_NE(nodes.description().find(std::to_string(mesh.node_offsets.size() - 1) + " nodes of 3-6 unknowns"),
            std::string::npos)
      << nodes.description();
  options.block_size = 1;
  Amg single(blas, A, options);
  EXPECT_TRUE(single.options().node_offsets.empty());
  EXPECT_LT(iterations(blas, A, nodes), iterations(blas, A, single));
  options.block_size = 0;
  options.setup_on = AmgOptions::SetupOn::Auto;
  Amg automatic(blas, A, options);
  EXPECT_EQ(automatic.options().node_offsets, mesh.node_offsets);
  EXPECT_EQ(automatic.setup_location(), "host");
  // Asked for the device setup (which aggregates single unknowns), block size 0 reads no pattern there.
  options.block_size = 0;
  options.setup_on = AmgOptions::SetupOn::Device;
  Amg on_device(blas, A, options);
  if (on_device.setup_location() == "device") EXPECT_TRUE(on_device.options().node_offsets.empty());
  // Given nodes go to the host setup, which says why when the device was asked for.
  options.node_offsets = mesh.node_offsets;
  Amg given(blas, A, options);
  EXPECT_EQ(given.setup_location(), "host");
  if (context->info().fp64) EXPECT_NE(given.setup_note().find("node_offsets"), std::string::npos) << given.setup_note();
}

// The Cylshell matrices from ../shared/matrices, when there: their 961 nodes found, and a third fewer
// iterations than with single unknowns (s2rmq4m1: 234 against 349 on PoCL).
TEST_F(AmgOnVariableNodes, CylindricalShellTakesFewerIterations) {
  const std::string path = test::matrix_path("s2rmq4m1.mtx");
  if (path.empty()) GTEST_SKIP() << "s2rmq4m1.mtx is not in ../shared/matrices";
  Matrix A(context, read_matrix_market(path), Format::Csr);
  Blas blas(context, Location::Device, Precision::Double);
  AmgOptions options;
  options.block_size = 0;
  options.setup_on = AmgOptions::SetupOn::Host;
  Amg nodes(blas, A, options);
  EXPECT_EQ(nodes.options().node_offsets.size(), 962u);
  options.block_size = 1;
  Amg single(blas, A, options);
  const int with_nodes = iterations(blas, A, nodes), without = iterations(blas, A, single);
  EXPECT_LE(with_nodes, 0.8 * without) << with_nodes << " against " << without;
}

TEST_F(AmgOnVariableNodes, RefusesBadOffsets) {
  const ConstrainedMesh mesh = constrained_mesh(9);
  Matrix A(context, mesh.A);
  Blas blas(context, Location::Device, Precision::Double);
  const auto refused = [&](std::vector<std::int32_t> offsets, int block_size, const std::string& text) {
    AmgOptions options;
    options.node_offsets = std::move(offsets);
    options.block_size = block_size;
    test::expect_error_naming([&] { Amg M(blas, A, options); }, text);
  };
  const std::int32_t rows = mesh.A.rows;
  refused({1, rows}, 1, "must run from 0");
  refused({0, rows - 1}, 1, "must run from 0");
  refused({0, 5, 5, rows}, 1, "node_offsets[2] = 5 does not exceed");
  refused({0, 7, 3, rows}, 1, "node_offsets[2] = 3 does not exceed");
  ASSERT_EQ(rows % 2, 0);
  refused(mesh.node_offsets, 2, "block_size = 2 and node_offsets");
}

}  // namespace
}  // namespace clkr
