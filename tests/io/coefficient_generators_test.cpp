// Tests of the variable-coefficient generators anisotropic3d and jumping3d: they reduce to poisson3d
// for a unit parameter, are symmetric with zero interior row sums, carry the couplings their
// documentation gives, and parse as specs with and without the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "generator_test_support.hpp"

namespace {

using clkr::HostCsrMatrix;

using clkr::test::entry;

// Symmetric entry by entry, a positive diagonal equal to the sum of the off-diagonal magnitudes
// plus the boundary couplings, so rows away from the boundary sum to zero.
void expect_stencil_properties(const HostCsrMatrix& A, int n) {
  A.validate();
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double sum = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = A.col_indices[k];
      sum += A.values[k];
      if (j != i) {
        EXPECT_LT(A.values[k], 0) << i << "," << j;
        EXPECT_EQ(A.values[k], entry(A, j, i)) << i << "," << j;
      }
    }
    const int x = i % n, y = i / n % n, z = i / (n * n);
    const bool interior = x > 0 && y > 0 && z > 0 && x < n - 1 && y < n - 1 && z < n - 1;
    if (interior) EXPECT_NEAR(sum, 0, 1e-12 * std::abs(entry(A, i, i))) << "row " << i;
    if (!interior) EXPECT_GT(sum, 0) << "row " << i;
  }
}

TEST(CoefficientGenerators, UnitParametersGivePoisson) {
  const HostCsrMatrix P = clkr::poisson3d(7);
  for (const HostCsrMatrix& A : {clkr::anisotropic3d(7, 1.0), clkr::jumping3d(7, 1.0)}) {
    EXPECT_EQ(A.row_offsets, P.row_offsets);
    EXPECT_EQ(A.col_indices, P.col_indices);
    EXPECT_EQ(A.values, P.values);
    EXPECT_TRUE(A.symmetric);
  }
}

TEST(CoefficientGenerators, AnisotropicCouplings) {
  const int n = 6;
  const HostCsrMatrix A = clkr::anisotropic3d(n, 1e-3);
  expect_stencil_properties(A, n);
  const std::int32_t i = (2 * n + 3) * n + 2;  // (2, 3, 2), interior
  EXPECT_EQ(entry(A, i, i + 1), -1.0);
  EXPECT_EQ(entry(A, i, i + n), -1.0);
  EXPECT_EQ(entry(A, i, i + n * n), -1e-3);
  EXPECT_EQ(entry(A, i, i - n * n), -1e-3);
  EXPECT_DOUBLE_EQ(entry(A, i, i), 4 + 2e-3);
}

TEST(CoefficientGenerators, JumpingCouplingsAreHarmonicMeans) {
  const int n = 8;  // cubes of 2 x 2 x 2 cells
  const double c = 1e4;
  const HostCsrMatrix A = clkr::jumping3d(n, c);
  expect_stencil_properties(A, n);
  auto id = [n](int x, int y, int z) { return (z * n + y) * n + x; };
  // Inside cube (0,0,0) (k = 1): faces of weight 1. Across x = 1|2 into cube (1,0,0) (k = c): 2c/(1+c).
  EXPECT_EQ(entry(A, id(0, 0, 0), id(1, 0, 0)), -1.0);
  EXPECT_DOUBLE_EQ(entry(A, id(1, 0, 0), id(2, 0, 0)), -2 * c / (1 + c));
  // Inside cube (1,0,0): faces of weight c.
  EXPECT_EQ(entry(A, id(2, 0, 0), id(3, 0, 0)), -c);
  EXPECT_EQ(entry(A, id(2, 0, 0), id(2, 1, 0)), -c);
}

TEST(CoefficientGenerators, Specs) {
  EXPECT_TRUE(clkr::is_generator_spec("anisotropic3d:4"));
  EXPECT_TRUE(clkr::is_generator_spec("jumping3d:4:100"));
  EXPECT_EQ(clkr::load_matrix("anisotropic3d:5").values, clkr::anisotropic3d(5, 1e-3).values);
  EXPECT_EQ(clkr::load_matrix("anisotropic3d:5:0.25").values, clkr::anisotropic3d(5, 0.25).values);
  EXPECT_EQ(clkr::load_matrix("jumping3d:5").values, clkr::jumping3d(5, 1e4).values);
  EXPECT_EQ(clkr::load_matrix("jumping3d:5:1e2").values, clkr::jumping3d(5, 100).values);
  const std::map<std::string, std::string> bad = {
      {"anisotropic3d:5:", "EPSILON a number"},  {"anisotropic3d:5:x", "EPSILON a number"},
      {"anisotropic3d:5:0", "0 < epsilon <= 1"}, {"anisotropic3d:5:2", "0 < epsilon <= 1"},
      {"jumping3d:0", "N a positive integer"},   {"jumping3d:5:0.5", "1 <= contrast"},
      {"poisson3d:5:2", "N a positive integer"},
  };
  clkr::test::expect_spec_errors(bad);
}

}  // namespace
