// The device Galerkin product of the AMG's update (kernels/precond/galerkin.cl, multiply_on_device)
// against a long-double host reference: random rectangular A (in CSR, CSR4, ELL and HYB) and B with
// empty rows, a long row in each, explicit zeros, at row counts around the work-group's multiples,
// with 1 to WG work-items sharing a row of C; a banded A in DIA against the same A in CSR; and how many
// work-items share a row (galerkin_lanes).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "amg_test_support.hpp"
#include "clkr/data/matrix.hpp"
#include "precond/amg/device_galerkin.hpp"
#include "precond/amg/sparse_products.hpp"

namespace clkr {
namespace {

// rows x cols: up to `per_row` random entries a row (every 7th row empty), row 1 long (every third
// column), one value in ten an explicit zero; values in [-1, 1] times 10^[-3, 3].
HostCsrMatrix galerkin_operand(std::int32_t rows, std::int32_t cols, int per_row, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), exponent(-3.0, 3.0);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    std::set<std::int32_t> columns;
    if (i == 1) {
      for (std::int32_t j = 0; j < cols; j += 3) columns.insert(j);
    } else if (i % 7 != 3 && cols > 0) {
      const int count = static_cast<int>(rng() % (per_row + 1));
      for (int c = 0; c < count; ++c) columns.insert(static_cast<std::int32_t>(rng() % cols));
    }
    for (std::int32_t j : columns) {
      A.col_indices.push_back(j);
      A.values.push_back(rng() % 10 == 0 ? 0.0 : u(rng) * std::pow(10.0, exponent(rng)));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

using GalerkinCase = std::tuple<Format, std::size_t>;  // A's format, max_lanes

class GalerkinKernel : public ::testing::TestWithParam<GalerkinCase> {};

TEST_P(GalerkinKernel, MatchesTheLongDoubleProductOnItsPattern) {
  const auto [format, max_lanes] = GetParam();
  auto context = test::amg_context();
  if (!context->info().fp64) GTEST_SKIP() << "the device Galerkin product needs fp64";
  const GalerkinParams params{64, max_lanes};
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;  // the long row pads ELL heavily; allowed here
  for (const std::int32_t rows : {0, 1, 3, 63, 65, 1023, 1025}) {
    const std::int32_t inner = rows / 2 + 5, cols = rows / 3 + 7;
    const HostCsrMatrix a = galerkin_operand(rows, inner, 6, 11 + rows);
    const HostCsrMatrix b = galerkin_operand(inner, cols, 40, 23 + rows);  // rows of B longer than 32 lanes
    HostCsrMatrix c = detail::amg::multiply(a, b);
    for (double& v : c.values) v = 1e300;  // garbage the kernel must overwrite
    Matrix A(context, a, format, options), B(context, b, Format::Csr), C(context, c, Format::Csr);
    detail::amg::multiply_on_device(A, B, C, params);
    C.values_written_on_device();
    const HostCsrMatrix got = C.to_host();
    ASSERT_EQ(got.values.size(), c.values.size());
    // Reference: per entry of C's pattern, the exact sum and the sum of |terms| in long double.
    for (std::int32_t i = 0; i < a.rows; ++i) {
      std::vector<long double> sum(static_cast<std::size_t>(cols), 0.0L), scale(sum.size(), 0.0L);
      for (std::int32_t ka = a.row_offsets[i]; ka < a.row_offsets[i + 1]; ++ka) {
        const std::int32_t k = a.col_indices[ka];
        for (std::int32_t kb = b.row_offsets[k]; kb < b.row_offsets[k + 1]; ++kb) {
          const long double term = static_cast<long double>(a.values[ka]) * b.values[kb];
          sum[b.col_indices[kb]] += term;
          scale[b.col_indices[kb]] += std::abs(term);
        }
      }
      for (std::int32_t k = c.row_offsets[i]; k < c.row_offsets[i + 1]; ++k) {
        const std::int32_t j = c.col_indices[k];
        ASSERT_NEAR(got.values[k], static_cast<double>(sum[j]), 1e-14 * static_cast<double>(scale[j]) + 1e-300)
            << "rows " << rows << ", C(" << i << "," << j << ")";
      }
    }
  }
}

std::string galerkin_case_name(const ::testing::TestParamInfo<GalerkinCase>& info) {
  return to_string(std::get<0>(info.param)) + "_lanes" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Cases, GalerkinKernel,
                         ::testing::Combine(::testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb),
                                            ::testing::Values(std::size_t{1}, std::size_t{4}, std::size_t{64})),
                         galerkin_case_name);

// Every lane count gives the same bits: each entry of C is summed in the order of A's row.
TEST(GalerkinKernel, EveryLaneCountGivesTheSameBits) {
  auto context = test::amg_context();
  if (!context->info().fp64) GTEST_SKIP() << "the device Galerkin product needs fp64";
  const HostCsrMatrix a = galerkin_operand(300, 200, 9, 5), b = galerkin_operand(200, 150, 30, 6);
  const HostCsrMatrix c = detail::amg::multiply(a, b);
  std::vector<double> first;
  for (std::size_t lanes : {1, 2, 8, 32, 128}) {
    Matrix A(context, a), B(context, b), C(context, c);
    detail::amg::multiply_on_device(A, B, C, GalerkinParams{128, lanes});
    C.values_written_on_device();
    const std::vector<double> values = C.to_host().values;
    if (first.empty()) first = values;
    EXPECT_EQ(values, first) << lanes << " lanes";
  }
}

// rows x cols with entries on the diagonals `offsets` (those inside the matrix), one in five missing
// (DIA then stores a zero there) and one in nine an explicit zero.
HostCsrMatrix banded_operand(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& offsets,
                             unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    for (std::int32_t offset : offsets) {
      const std::int32_t j = i + offset;
      if (j < 0 || j >= cols || rng() % 5 == 0) continue;
      A.col_indices.push_back(j);
      A.values.push_back(rng() % 9 == 0 ? 0.0 : u(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// A in DIA (the update step reads a stencil matrix so, without a CSR copy) gives the bits A in CSR
// gives: the same terms in the same order, the zeros DIA stores skipped (they add nothing). Diagonals
// at both edges of a rectangular A, whose slots outside the matrix must not be followed into B.
TEST(GalerkinKernel, DiaGivesTheBitsOfCsr) {
  auto context = test::amg_context();
  if (!context->info().fp64) GTEST_SKIP() << "the device Galerkin product needs fp64";
  for (const std::int32_t rows : {1, 3, 63, 65, 1023, 1025}) {
    for (const std::size_t lanes : {std::size_t{1}, std::size_t{8}, std::size_t{64}}) {
      const std::int32_t inner = rows / 2 + 5, cols = rows / 3 + 7;
      const HostCsrMatrix a = banded_operand(rows, inner, {-rows + 1, -40, -3, -1, 0, 1, 2, 17, inner - 1}, 7 + rows);
      const HostCsrMatrix b = galerkin_operand(inner, cols, 20, 31 + rows);
      const HostCsrMatrix c = detail::amg::multiply(a, b);
      HostCsrMatrix a_abs = a, b_abs = b;  // |A| |B|: each entry's scale of rounding
      for (double& v : a_abs.values) v = std::abs(v);
      for (double& v : b_abs.values) v = std::abs(v);
      const HostCsrMatrix scale = detail::amg::multiply(a_abs, b_abs);
      ASSERT_EQ(scale.values.size(), c.values.size());
      const GalerkinParams params{64, lanes};
      MatrixOptions options;
      options.max_ell_fill_ratio = 1e9;  // the far diagonals are mostly outside a small matrix; allowed here
      Matrix A_csr(context, a, Format::Csr), A_dia(context, a, Format::Dia, options), B(context, b, Format::Csr);
      ASSERT_EQ(A_dia.format(), Format::Dia);
      std::vector<double> got[2];
      int k = 0;
      for (Matrix* A : {&A_csr, &A_dia}) {
        HostCsrMatrix garbage = c;
        for (double& v : garbage.values) v = 1e300;
        Matrix C(context, garbage, Format::Csr);
        detail::amg::multiply_on_device(*A, B, C, params);
        C.values_written_on_device();
        got[k++] = C.to_host().values;
      }
      EXPECT_EQ(got[1], got[0]) << rows << " rows, " << lanes << " lanes";
      for (std::size_t e = 0; e < c.values.size(); ++e)
        ASSERT_NEAR(got[1][e], c.values[e], 1e-14 * scale.values[e] + 1e-300) << rows << " rows, entry " << e;
    }
  }
}

TEST(GalerkinKernel, LanesFollowTheMeanRowLengthOfB) {
  auto context = test::amg_context();
  const HostCsrMatrix p = poisson3d(6);  // 6.6 entries a row on average (boundary rows are shorter)
  Matrix B(context, p);
  EXPECT_EQ(detail::amg::galerkin_lanes(B, GalerkinParams{128, 32}), 8u);
  EXPECT_EQ(detail::amg::galerkin_lanes(B, GalerkinParams{128, 4}), 4u);
  EXPECT_EQ(detail::amg::galerkin_lanes(B, GalerkinParams{128, 1}), 1u);
  HostCsrMatrix empty;
  empty.rows = empty.cols = 3;
  empty.row_offsets = {0, 0, 0, 0};
  EXPECT_EQ(detail::amg::galerkin_lanes(Matrix(context, empty), GalerkinParams{128, 32}), 1u);
}

}  // namespace
}  // namespace clkr
