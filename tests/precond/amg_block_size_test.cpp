// AmgOptions::block_size = 0 (auto, detail::amg::detect_block_size): the unknowns per node read from the
// sparsity pattern. Node-structured matrices with structural zeros inside their couplings give their
// block size, stencils and matrices whose rows no candidate divides give 1, ties go to the larger size;
// Amg reports the size it used, and block sizes that do not divide the rows are refused; the size is
// resolved before the setup's location is chosen; a fixed size beats less consistent nodes of
// different sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "../precision_support.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/runtime/error.hpp"
#include "precond/amg/block_size.hpp"

namespace clkr {
namespace {

using detail::amg::detect_block_size;

using test::grid_with_blocks;

TEST(AmgBlockSize, ReadFromThePattern) {
  EXPECT_EQ(detect_block_size(test::vector_laplacian2d(8)), 2);
  for (int b : {3, 4, 6}) EXPECT_EQ(detect_block_size(grid_with_blocks(7, b)), b) << b;
  // Stencils: every row's neighbours straddle node boundaries differently from its node-mates'.
  EXPECT_EQ(detect_block_size(poisson3d(12)), 1);  // 1728 rows: 2, 3, 4, 6 and 8 divide them
  EXPECT_EQ(detect_block_size(poisson2d(12)), 1);
  EXPECT_EQ(detect_block_size(test::jumping_coefficient3d(6, 100.0)), 1);
  // No candidate divides 3 * 49 + 1 rows: 1.
  HostCsrMatrix odd = grid_with_blocks(7, 3);
  odd.rows = odd.cols = odd.rows + 1;
  odd.row_offsets.push_back(odd.row_offsets.back() + 1);
  odd.col_indices.push_back(odd.rows - 1);
  odd.values.push_back(1.0);
  odd.validate();
  EXPECT_EQ(detect_block_size(odd), 1);
  // Whole lines of a small grid: each row of an x-line reaches the same lines, but the line's block is
  // tridiagonal (34% full for 8 rows): not a node.
  EXPECT_EQ(detect_block_size(poisson3d(8)), 1);
  EXPECT_EQ(detect_block_size(poisson2d(6)), 1);
  // A diagonal matrix: each row reaches its own node only, but a node's block is 1/b full: 1.
  HostCsrMatrix diagonal;
  diagonal.rows = diagonal.cols = 30;
  for (std::int32_t i = 0; i < 30; ++i) {
    diagonal.col_indices.push_back(i);
    diagonal.values.push_back(1.0);
    diagonal.row_offsets.push_back(i + 1);
  }
  EXPECT_EQ(detect_block_size(diagonal), 1);
  // Nodes of 4: groups of 2 pass as well (a node's pairs reach the same pairs); the larger size wins.
  EXPECT_EQ(detect_block_size(grid_with_blocks(5, 4)), 4);
  HostCsrMatrix empty;
  EXPECT_EQ(detect_block_size(empty), 1);
}

// The detection's rule written plainly, without its early stops: every candidate's share and fill over
// the same sampled nodes (kSampledNodes spread evenly), sets of reached nodes per row.
std::int32_t full_sample_block_size(const HostCsrMatrix& A) {
  std::int32_t best = 1;
  double best_share = 0;
  for (std::int32_t b = 2; b <= detail::amg::kMaxDetectedBlock; ++b) {
    if (A.rows < b || A.rows % b != 0) continue;
    const std::int32_t nodes = A.rows / b, samples = std::min<std::int32_t>(nodes, 4096);
    std::int64_t consistent = 0, stored = 0;
    for (std::int32_t s = 0; s < samples; ++s) {
      const std::int32_t node = static_cast<std::int32_t>(static_cast<std::int64_t>(s) * nodes / samples);
      // The node is consistent when every row of it reaches the same set of nodes (sorted, unique).
      std::vector<std::int32_t> first, mine;
      bool same = true;
      for (std::int32_t row = node * b; row < node * b + b; ++row) {
        mine.clear();
        for (std::int64_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k) {
          mine.push_back(A.col_indices[k] / b);
          if (A.col_indices[k] / b == node) ++stored;
        }
        std::sort(mine.begin(), mine.end());
        mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
        if (row == node * b) {
          first = mine;
        } else if (mine != first) {
          same = false;
        }
      }
      if (same) ++consistent;
    }
    const double share = static_cast<double>(consistent) / samples;
    const double fill = static_cast<double>(stored) / (static_cast<double>(samples) * b * b);
    if (fill >= detail::amg::kDetectedBlockFill && share > 0 && share >= best_share) {
      best_share = share;
      best = b;
    }
  }
  return best_share >= detail::amg::kDetectedBlockShare ? best : 1;
}

// grid_with_blocks with some nodes spoiled: in a share `broken` of them the last row loses its entries
// to one neighbouring node (the node's rows then reach different nodes), and in a share `thinned` each
// row loses its couplings inside the node's diagonal block (less fill).
HostCsrMatrix spoiled_blocks(int n, int b, double broken, double thinned, std::mt19937& rng) {
  const HostCsrMatrix A = grid_with_blocks(n, b);
  std::uniform_real_distribution<double> u(0, 1);
  HostCsrMatrix B;
  B.rows = B.cols = A.rows;
  for (std::int32_t node = 0; node < A.rows / b; ++node) {
    const bool breaks = u(rng) < broken, thins = u(rng) < thinned;
    std::int32_t dropped_node = -1;  // a neighbouring node of the node's last row
    for (std::int64_t k = A.row_offsets[node * b + b - 1]; k < A.row_offsets[node * b + b]; ++k)
      if (A.col_indices[k] / b != node) dropped_node = A.col_indices[k] / b;
    for (std::int32_t row = node * b; row < node * b + b; ++row) {
      for (std::int64_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k) {
        const std::int32_t j = A.col_indices[k];
        if (breaks && row == node * b + b - 1 && j / b == dropped_node) continue;
        if (thins && j / b == node && j != row) continue;
        B.col_indices.push_back(j);
        B.values.push_back(A.values[k]);
      }
      B.row_offsets.push_back(static_cast<std::int64_t>(B.col_indices.size()));
    }
  }
  B.validate();
  return B;
}

// The detection stops sampling a candidate that can no longer reach either bar; it must decide as the
// whole sample does, also where the share or the fill lies near its bar.
TEST(AmgBlockSize, StoppingEarlyDecidesAsTheWholeSample) {
  std::mt19937 rng(29);
  int detected = 0;
  for (int b : {2, 3, 4, 6})
    for (double broken : {0.0, 0.1, 0.18, 0.2, 0.22, 0.3, 0.7})
      for (double thinned : {0.0, 0.2, 0.45, 0.6}) {
        const HostCsrMatrix A = spoiled_blocks(9, b, broken, thinned, rng);
        const std::int32_t expected = full_sample_block_size(A);
        EXPECT_EQ(detect_block_size(A), expected) << "b " << b << ", broken " << broken << ", thinned " << thinned;
        detected += expected > 1 ? 1 : 0;
      }
  EXPECT_GT(detected, 10);  // both outcomes occur among these matrices
  EXPECT_LT(detected, 4 * 7 * 4 - 10);
  for (int n : {6, 12, 20}) EXPECT_EQ(detect_block_size(poisson3d(n)), full_sample_block_size(poisson3d(n))) << n;
  // Past the size from which the candidates are sampled on all cores (100 k entries): 60 x 60 nodes.
  for (int b : {3, 6})
    for (double broken : {0.1, 0.3})
      for (double thinned : {0.0, 0.6}) {
        const HostCsrMatrix A = spoiled_blocks(60, b, broken, thinned, rng);
        ASSERT_GT(A.nnz(), 100000);
        EXPECT_EQ(detect_block_size(A), full_sample_block_size(A))
            << "60 x 60, b " << b << ", broken " << broken << ", thinned " << thinned;
      }
}

// Nodes of 3 unknowns on a 12 x 12 grid (432 rows) on the AMG tests' device, in double, and the
// options both tests start from (a coarse size that leaves more than one level).
class AmgOnBlocks : public ::testing::Test {
 protected:
  void SetUp() override {
    CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double);
    blas = std::make_unique<Blas>(context, Location::Device, Precision::Double);
    A = std::make_unique<Matrix>(context, grid_with_blocks(12, 3));
    options.coarse_size = 30;
  }
  std::shared_ptr<Context> context = test::amg_context();
  std::unique_ptr<Blas> blas;
  std::unique_ptr<Matrix> A;
  AmgOptions options;
};

TEST_F(AmgOnBlocks, AmgReportsTheDetectedSizeAndRefusesBadOnes) {
  EXPECT_EQ(options.block_size, 1);  // the library's default; 0 asks for the detection
  options.block_size = 0;
  const Amg detected(*blas, *A, options);
  EXPECT_EQ(detected.options().block_size, 3);
  options.block_size = 3;
  const Amg given(*blas, *A, options);
  EXPECT_EQ(detected.levels().size(), given.levels().size());
  for (std::size_t l = 0; l < given.levels().size(); ++l) EXPECT_EQ(detected.levels()[l].nnz, given.levels()[l].nnz);
  for (int bad : {-1, 5}) {  // 432 rows: 5 does not divide them
    options.block_size = bad;
    EXPECT_THROW(Amg M(*blas, *A, options), Error) << bad;
  }
}

// elasticity3d: every node has three unknowns (b = 3, every sampled node consistent), but the nodes
// next to the clamped face and on the far face share enough columns with their neighbours' for the
// variable-size detection to merge them (nodes of 3-6 rows, fewer than 13,872 / 3 of them). The more
// consistent fixed size wins: the merged nodes were an artefact of the faces, not nodes of the mesh.
TEST(AmgBlockSizeOnElasticity, FixedSizeKeptWhereMergedNodesAreLessConsistent) {
  const HostCsrMatrix H = elasticity3d(16);
  double fixed_share = 0, nodes_share = 0;
  EXPECT_EQ(detect_block_size(H, &fixed_share), 3);
  EXPECT_EQ(fixed_share, 1.0);
  const auto merged = detail::amg::detect_variable_nodes(H, &nodes_share);
  ASSERT_TRUE(merged.has_value());  // what the choice below must overrule
  EXPECT_LT(merged->count() * 3, H.rows);
  EXPECT_LT(nodes_share, fixed_share);
  auto context = test::amg_context();
  MatrixOptions keep;
  keep.keep_host_copy = true;
  Matrix A(context, H, Format::Csr, keep);
  Blas host(context, Location::Host, Precision::Double);
  AmgOptions options;
  options.block_size = 0;
  options.setup_on = AmgOptions::SetupOn::Host;
  const Amg M(host, A, options);
  EXPECT_EQ(M.options().block_size, 3);
  EXPECT_TRUE(M.options().node_offsets.empty());
}

// Block size 0 with each setup_on: Auto and Host detect it on A's host copy (so a matrix with blocks is
// set up on the host, GPUs included); Device takes 1 without reading A back where the device setup can
// take A, and detects it where the host must build the hierarchy anyway.
TEST_F(AmgOnBlocks, ResolvedBeforeChoosingWhereTheSetupRuns) {
  options.block_size = 0;
  auto has_phase = [](const Amg& M, const std::string& name) {
    for (const auto& [phase, seconds] : M.setup_phases())
      if (phase == name) return true;
    return false;
  };
  for (AmgOptions::SetupOn where : {AmgOptions::SetupOn::Auto, AmgOptions::SetupOn::Host}) {
    options.setup_on = where;
    const Amg M(*blas, *A, options);
    EXPECT_EQ(M.options().block_size, 3) << to_string(where);
    EXPECT_EQ(M.setup_location(), "host") << to_string(where);
    EXPECT_TRUE(has_phase(M, "block size")) << to_string(where);
  }
  options.setup_on = AmgOptions::SetupOn::Device;
  const Amg on_device(*blas, *A, options);
  if (context->info().fp64) {
    EXPECT_EQ(on_device.options().block_size, 1);
    EXPECT_EQ(on_device.setup_location(), "device");
    EXPECT_EQ(on_device.setup_note(), "");
    EXPECT_FALSE(has_phase(on_device, "block size"));
    EXPECT_FALSE(has_phase(on_device, "matrix to the host"));
  } else {
    EXPECT_EQ(on_device.options().block_size, 3);
    EXPECT_EQ(on_device.setup_location(), "host");
  }
  // The host backend cannot take the device setup: detected there too.
  Blas host_blas(context, Location::Host, Precision::Double);
  EXPECT_EQ(Amg(host_blas, *A, options).options().block_size, 3);
  // A stencil: 1 wherever it is resolved, and the device builds it under Auto on GPUs as before.
  Matrix S(context, poisson3d(12));
  options.setup_on = AmgOptions::SetupOn::Auto;
  const Amg stencil(*blas, S, options);
  EXPECT_EQ(stencil.options().block_size, 1);
  EXPECT_EQ(stencil.setup_location(), context->info().type == DeviceType::Cpu ? "host" : "device");
}

}  // namespace
}  // namespace clkr
