// Tests of elasticity3d: its size and pattern (three unknowns a node, 27-node neighbourhoods), exact
// symmetry, positive energy, the rigid-body modes annihilated on every row away from the clamped face
// (what makes it elasticity: translations and rotations strain nothing), the coordinates, and the spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/precond/rigid_body_modes.hpp"
#include "clkr/runtime/error.hpp"
#include "generator_test_support.hpp"

namespace {

using clkr::HostCsrMatrix;

using clkr::test::entry;

std::vector<double> multiply(const HostCsrMatrix& A, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) y[i] += A.values[k] * x[A.col_indices[k]];
  return y;
}

TEST(ElasticityGenerator, SizePatternAndSymmetry) {
  for (int n : {1, 2, 5}) {
    const HostCsrMatrix A = clkr::elasticity3d(n);
    A.validate();
    ASSERT_EQ(A.rows, 3 * n * (n + 1) * (n + 1)) << n;
    EXPECT_TRUE(A.symmetric);
    std::int64_t longest = 0;
    for (std::int32_t i = 0; i < A.rows; ++i) {
      longest = std::max<std::int64_t>(longest, A.row_offsets[i + 1] - A.row_offsets[i]);
      // The three rows of a node have the same columns: whole 3 x 3 blocks (what block_size 3 reads).
      EXPECT_EQ(A.row_offsets[i + 1] - A.row_offsets[i], A.row_offsets[i - i % 3 + 1] - A.row_offsets[i - i % 3]);
      EXPECT_GT(entry(A, i, i), 0) << "row " << i;
      for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
        ASSERT_EQ(A.values[k], entry(A, A.col_indices[k], i)) << n << ": (" << i << ", " << A.col_indices[k] << ")";
    }
    // 27 neighbours of 3 unknowns where a node has them all (n >= 3); n = 2: x = h and 2h only (2 x 3 x
    // 3 nodes); n = 1: the four nodes of the face x = 1 (1 x 2 x 2).
    EXPECT_EQ(longest, n >= 3 ? 81 : n == 2 ? 54 : 12) << n;
  }
}

TEST(ElasticityGenerator, PositiveEnergyOnRandomDisplacements) {
  const HostCsrMatrix A = clkr::elasticity3d(4, 0.45);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> x(static_cast<std::size_t>(A.rows));
    for (double& v : x) v = u(rng);
    const std::vector<double> y = multiply(A, x);
    double energy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) energy += x[i] * y[i];
    EXPECT_GT(energy, 0) << trial;
  }
}

// A rigid motion strains no element, so the unclamped body's stiffness annihilates it: every row but
// those of the nodes next to the clamped face (x = h), whose missing neighbours held them, sums to
// zero against each of the six modes; those rows do not (the clamp resists rigid motion).
TEST(ElasticityGenerator, RigidBodyModesAreAnnihilatedAwayFromTheClamp) {
  const int n = 4;
  const HostCsrMatrix A = clkr::elasticity3d(n);
  const std::vector<double> xyz = clkr::elasticity3d_coordinates(n);
  ASSERT_EQ(xyz.size(), static_cast<std::size_t>(A.rows));
  const double h = 1.0 / n;
  EXPECT_EQ(xyz[0], h);  // node 0: i = 1, j = k = 0
  EXPECT_EQ(xyz[1], 0);
  EXPECT_EQ(xyz[2], 0);
  EXPECT_DOUBLE_EQ(xyz[3 * (n * (n + 1) * (n + 1) - 1)], 1.0);  // the last node: the corner (1, 1, 1)
  double scale = 0;
  for (double v : A.values) scale = std::max(scale, std::abs(v));
  const auto modes = clkr::rigid_body_modes(xyz, 3);
  for (std::size_t m = 0; m < modes.size(); ++m) {
    const std::vector<double> y = multiply(A, modes[m]);
    double at_clamp = 0;
    for (std::int32_t i = 0; i < A.rows; ++i) {
      const bool next_to_clamp = std::abs(xyz[i - i % 3] - h) < 1e-12;
      if (next_to_clamp) {
        at_clamp = std::max(at_clamp, std::abs(y[i]));
      } else {
        EXPECT_NEAR(y[i], 0, 1e-13 * scale) << "mode " << m << ", row " << i;
      }
    }
    EXPECT_GT(at_clamp, 1e-3 * scale) << "mode " << m;
  }
}

TEST(ElasticityGenerator, Specs) {
  EXPECT_TRUE(clkr::is_generator_spec("elasticity3d:4"));
  EXPECT_EQ(clkr::load_matrix("elasticity3d:3").values, clkr::elasticity3d(3, 0.3).values);
  EXPECT_EQ(clkr::load_matrix("elasticity3d:3:0.25").values, clkr::elasticity3d(3, 0.25).values);
  const clkr::DeclaredSize size = clkr::declared_size("elasticity3d:6");
  const HostCsrMatrix A = clkr::elasticity3d(6);
  EXPECT_TRUE(size.known);
  EXPECT_EQ(size.rows, A.rows);
  EXPECT_GE(size.max_nnz, A.nnz());
  const std::map<std::string, std::string> bad = {
      {"elasticity3d:0", "N a positive integer"}, {"elasticity3d:4:0.5", "-1 < nu < 0.5"},
      {"elasticity3d:4:-1", "-1 < nu < 0.5"},     {"elasticity3d:4:x", "NU a number"},
      {"elasticity3d:2000", "int32 limit"},
  };
  clkr::test::expect_spec_errors(bad);
}

}  // namespace
