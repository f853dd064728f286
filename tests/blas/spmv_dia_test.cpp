// The DIA SpMV (kernels/spmv/dia.cl) against the long double reference in every precision and (alpha,
// beta) variant, on a poisoned y, in the GPU launch (a row per work-item) and CPU ones (blocks of rows
// walked a row or a tile of rows at a time, tiles that do and do not divide the block): the awkward
// shapes of spmv_test_support.hpp (thousands of diagonals, allowed on purpose), banded and
// multi-diagonal matrices with diagonals at the matrix's corners, square and rectangular, with holes in
// their diagonals, stencils, one dense row and one dense column, Kahan-compensated single, and the work
// it counts. (spmv_test.cpp runs DIA through Blas with the other formats.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

// A rows x cols matrix with entries on the given diagonals (column - row), each slot inside the matrix
// kept with probability `density`, random values.
HostCsrMatrix on_diagonals(std::int32_t rows, std::int32_t cols, std::vector<std::int32_t> offsets, double density,
                           std::uint32_t seed) {
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  A.row_offsets.assign(1, 0);
  for (std::int32_t i = 0; i < rows; ++i) {
    for (std::int32_t offset : offsets) {
      const std::int64_t j = static_cast<std::int64_t>(i) + offset;
      if (j < 0 || j >= cols || coin(rng) >= density) continue;
      A.col_indices.push_back(static_cast<std::int32_t>(j));
      A.values.push_back(random_value(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// Diagonal, one dense row (rows / 2) and one dense column (2).
HostCsrMatrix dia_dense_row_and_column(std::int32_t n) {
  HostCsrMatrix A;
  A.rows = A.cols = n;
  A.row_offsets.assign(1, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = 0; j < n; ++j)
      if (i == n / 2 || j == i || j == 2) A.col_indices.push_back(j);
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.values = random_vector(A.col_indices.size(), 41);
  A.validate();
  return A;
}

std::vector<std::pair<std::string, HostCsrMatrix>> banded_matrices() {
  std::vector<std::pair<std::string, HostCsrMatrix>> list;
  for (std::int32_t n : {1, 2, 3, 31, 33, 1023, 1025}) {
    // The corners: diagonals -(n-1) and n-1 hold one entry each.
    list.push_back({"corners " + std::to_string(n), on_diagonals(n, n, {-(n - 1), -1, 0, 1, n - 1}, 1.0, 1)});
    list.push_back({"holes " + std::to_string(n), on_diagonals(n, n, {-(n - 1), -37, -5, 0, 3, 64, n - 1}, 0.6, 2)});
  }
  list.push_back({"band 1025 x 300", on_diagonals(1025, 300, {-1024, -700, -2, 0, 1, 299}, 0.9, 3)});
  list.push_back({"band 300 x 1025", on_diagonals(300, 1025, {-299, -3, 0, 5, 724, 1024}, 0.9, 4)});
  list.push_back({"upper only 257", on_diagonals(257, 257, {1, 2, 256}, 1.0, 5)});
  list.push_back({"poisson2d 17", poisson2d(17)});
  list.push_back({"poisson3d 9", poisson3d(9)});
  list.push_back({"dense row and column 300", dia_dense_row_and_column(300)});
  return list;
}

// The GPU launch (work-groups of 32, a row per work-item) and CPU ones: blocks of 7 rows a row at a
// time or in tiles of 5, blocks of 100 rows in tiles of 64.
struct Launch {
  std::size_t rows_per_item, tile;
  std::string name() const { return "rows/item " + std::to_string(rows_per_item) + " tile " + std::to_string(tile); }
  SpmvParams params() const {
    SpmvParams p;
    p.work_group_size = 32;
    p.rows_per_work_item = rows_per_item;
    p.dia_tile_rows = tile;
    return p;
  }
};
const Launch kLaunches[] = {{1, 0}, {7, 0}, {7, 5}, {100, 64}};

class SpmvDia : public testing::TestWithParam<Precision> {};

TEST_P(SpmvDia, AwkwardShapes) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  for (const Launch& launch : kLaunches) {
    const SpmvParams params = launch.params();
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (std::size_t s = 0; s < shapes().size(); ++s) {
      const HostCsrMatrix H = random_matrix(shapes()[s], 700 + static_cast<std::uint32_t>(s));
      Matrix A(test_context(), H, Format::Dia, test_matrix_options());  // every diagonal allowed
      const std::string what = "dia " + launch.name() + " " + shapes()[s].name;
      for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, what, run);
    }
  }
}

TEST_P(SpmvDia, BandsCornersStencilsAndADenseRowAndColumn) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  const auto matrices = banded_matrices();
  for (const Launch& launch : kLaunches) {
    const SpmvParams params = launch.params();
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (const auto& [name, H] : matrices) {
      Matrix A(test_context(), H, Format::Dia, test_matrix_options());
      const std::string what = "dia " + launch.name() + " " + name;
      for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, what, run);
    }
  }
  // Through Blas, with the device's own launch parameters.
  Blas blas(test_context(), Location::Device, p);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (const auto& [name, H] : matrices) {
    Matrix A(test_context(), H, Format::Dia, test_matrix_options());
    for (const AlphaBeta& c : kTwoCases) check_spmv(A, H, p, c, "dia blas " + name, run);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, SpmvDia,
                         testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         [](const testing::TestParamInfo<Precision>& info) { return to_string(info.param); });

TEST(SpmvDiaKahan, AllVariantsMatchReference) {
  BlasOptions kahan;
  kahan.kahan_spmv = true;
  Blas blas(test_context(), Location::Device, Precision::Single, kahan);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (const auto& [name, H] : banded_matrices()) {
    Matrix A(test_context(), H, Format::Dia, test_matrix_options());
    for (const AlphaBeta& c : kAllCases) check_spmv(A, H, Precision::Single, c, "kahan dia " + name, run);
  }
}

// The work counted: the slots inside the matrix (padding included) at the value's bytes, no column
// index, the offsets, x and y.
TEST(SpmvDiaCost, CountsSlotsInsideTheMatrixAndNoIndices) {
  // 5 x 5 corners: diagonals -4, -1, 0, 1, 4 hold 1 + 4 + 5 + 4 + 1 = 15 slots inside the matrix, every
  // one an entry here; the 5 x 5 slots of the pitch past them are never read.
  const HostCsrMatrix H = on_diagonals(5, 5, {-4, -1, 0, 1, 4}, 1.0, 6);
  Matrix A(test_context(), H, Format::Dia);
  EXPECT_EQ(A.dia_part().inside, 15);
  auto cost = detail::spmv_cost(A, Precision::Double, 0);
  EXPECT_EQ(cost.flops, 2.0 * static_cast<double>(H.nnz()));
  EXPECT_EQ(cost.bytes, 15 * 8 + 5 * 4 + 5 * 8 + 5 * 8);
  // Single, beta != 0: y read too, 2 flops per row more.
  cost = detail::spmv_cost(A, Precision::Single, 1);
  EXPECT_EQ(cost.flops, 2.0 * static_cast<double>(H.nnz()) + 10);
  EXPECT_EQ(cost.bytes, 15 * 4 + 5 * 4 + 5 * 4 + 2 * 5 * 4);
}

}  // namespace
}  // namespace clkr
