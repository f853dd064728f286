// Tests of Matrix::update_values: new values on the same pattern reach every format's layout and every
// precision already made, the index arrays stay, and wrong counts, NaN/Inf and pattern changes are
// refused naming what is wrong, leaving the matrix unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;

// A matrix with an empty row, a long row and short rows, so that CSR4, ELL and HYB all pad.
HostCsrMatrix irregular_matrix() {
  HostCsrMatrix A;
  A.rows = A.cols = 70;
  std::mt19937 rng(5);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    const int length = i == 9 ? 0 : (i == 33 ? 60 : 1 + static_cast<int>(rng() % 5));
    std::vector<std::int32_t> cols;
    for (std::int32_t j = 0; j < A.cols && static_cast<int>(cols.size()) < length; ++j)
      if (j == i || rng() % 3 == 0 || i == 33) cols.push_back(j);
    for (std::int32_t j : cols) {
      A.col_indices.push_back(j);
      A.values.push_back(1.0 + 0.25 * static_cast<double>(rng() % 16));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

std::vector<double> new_values(const HostCsrMatrix& A, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> v(A.values.size());
  for (double& e : v) e = u(rng);
  return v;
}

// y = A x on the host in double.
std::vector<double> multiply(const HostCsrMatrix& A, const std::vector<double>& x) {
  std::vector<double> y(A.rows, 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) y[i] += A.values[k] * x[A.col_indices[k]];
  return y;
}

// (format, wide): wide forces 64-bit row offsets (CSR) and 64-bit update slots (the other formats), the
// paths of matrices past 2^31 - 1 entries, on a small matrix.
class MatrixUpdate : public ::testing::TestWithParam<std::tuple<Format, bool>> {};

TEST_P(MatrixUpdate, NewValuesReachTheLayoutAndEveryPrecisionMade) {
  const HostCsrMatrix host = irregular_matrix();
  MatrixOptions options;
  options.max_ell_fill_ratio = 100;  // ELL with the long row: padding on purpose
  options.wide_offsets = std::get<1>(GetParam());
  Matrix A(context(), host, std::get<0>(GetParam()), options);
  // Every precision exists before the update (single and quasi-double made from the doubles).
  std::vector<Precision> precisions = {Precision::Single, Precision::QuasiDouble};
  if (context()->info().fp64) precisions.push_back(Precision::Double);
  std::vector<double> x(host.cols);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.7 * static_cast<double>(i));
  for (Precision p : precisions) {
    Blas blas(context(), Location::Device, p);
    Vector vx(context(), x, "x"), vy(context(), host.rows, "y");
    blas.spmv(1.0, A, vx, 0.0, vy);
  }

  HostCsrMatrix updated = host;
  updated.values = new_values(host, 11);
  A.update_values(updated.values);
  const HostCsrMatrix back = A.to_host();
  ASSERT_EQ(back.col_indices, host.col_indices);
  ASSERT_EQ(back.row_offsets, host.row_offsets);
  for (std::size_t k = 0; k < back.values.size(); ++k) ASSERT_NEAR(back.values[k], updated.values[k], 1e-14) << k;

  const std::vector<double> expected = multiply(updated, x);
  for (Precision p : precisions) {
    Blas blas(context(), Location::Device, p);
    Vector vx(context(), x, "x"), vy(context(), host.rows, "y");
    blas.spmv(1.0, A, vx, 0.0, vy);
    const std::vector<double> y = vy.to_host();
    const double tol = p == Precision::Single ? 1e-5 : 1e-12;
    for (std::int32_t i = 0; i < host.rows; ++i)
      EXPECT_NEAR(y[i], expected[i], tol * (1 + std::abs(expected[i]))) << to_string(p) << " row " << i;
  }
  // A second update goes the same way (the slot map made by the first is reused).
  updated.values = new_values(host, 12);
  A.update_values(updated);
  const HostCsrMatrix again = A.to_host();
  for (std::size_t k = 0; k < again.values.size(); ++k) ASSERT_NEAR(again.values[k], updated.values[k], 1e-14);
}

INSTANTIATE_TEST_SUITE_P(Formats, MatrixUpdate,
                         ::testing::Combine(::testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb,
                                                              Format::Sell, Format::Dia),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return to_string(std::get<0>(info.param)) + (std::get<1>(info.param) ? "_wide" : "");
                         });

// A band of width 5 with random values and random gaps (entries left out), at sizes around the
// scatter's work-group (256) and a DIA/SELL slice: each update's values read back and give the
// host's product in the matrix's best precision (padding, which no update writes, must stay zero).
TEST(MatrixUpdateSizes, AwkwardSizesInEveryFormat) {
  const Precision p = context()->info().fp64 ? Precision::Double : Precision::QuasiDouble;
  for (const std::int32_t n : {1, 3, 255, 257, 1023, 1025}) {
    HostCsrMatrix host;
    host.rows = host.cols = n;
    std::mt19937 rng(static_cast<unsigned>(n));
    for (std::int32_t i = 0; i < n; ++i) {
      for (std::int32_t j = std::max(0, i - 2); j <= std::min(n - 1, i + 2); ++j) {
        if (j != i && rng() % 4 == 0) continue;
        host.col_indices.push_back(j);
        host.values.push_back(1.0);
      }
      host.row_offsets.push_back(static_cast<std::int64_t>(host.col_indices.size()));
    }
    std::vector<double> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.3 * static_cast<double>(i) + 0.2);
    for (Format f : {Format::Csr4, Format::Ell, Format::Hyb, Format::Sell, Format::Dia}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + to_string(f));
      MatrixOptions options;
      options.max_ell_fill_ratio = 100;  // SELL's slices and ELL pad the small sizes on purpose
      Matrix A(context(), host, f, options);
      HostCsrMatrix updated = host;
      for (unsigned round = 0; round < 2; ++round) {
        updated.values = new_values(host, 100 + round);
        A.update_values(updated.values);
        // Exact with fp64; a device without keeps quasi-double's 48 bits.
        const std::vector<double> back = A.to_host().values;
        ASSERT_EQ(back.size(), updated.values.size());
        for (std::size_t k = 0; k < back.size(); ++k) ASSERT_NEAR(back[k], updated.values[k], 1e-14) << k;
        Blas blas(context(), Location::Device, p);
        Vector vx(context(), x, "x"), vy(context(), host.rows, "y");
        blas.spmv(1.0, A, vx, 0.0, vy);
        const std::vector<double> y = vy.to_host(), expected = multiply(updated, x);
        for (std::int32_t i = 0; i < n; ++i) ASSERT_NEAR(y[i], expected[i], 1e-12 * (1 + std::abs(expected[i]))) << i;
      }
    }
  }
}

TEST(MatrixUpdateRefusals, WrongCountNonFiniteAndPatternChangeLeaveTheMatrixAlone) {
  const HostCsrMatrix host = poisson2d(4);
  Matrix A(context(), host, Format::Ell);
  auto expect_error = [&](auto&& call, const std::string& words) {
    try {
      call();
      FAIL() << "accepted: expected an error mentioning '" << words << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_EQ(A.to_host().values, host.values);
  };
  expect_error([&] { A.update_values(std::vector<double>(host.values.size() - 1, 1.0)); }, "values given");
  std::vector<double> with_nan = host.values;
  with_nan[5] = std::nan("");  // row 0 has 3 entries, row 1 columns 0, 1, 2, 5: entry 5 is (1, 2)
  expect_error([&] { A.update_values(with_nan); }, "row 1, column 2");
  HostCsrMatrix moved = host;
  moved.col_indices[5] = host.col_indices[5] + 1;  // row 1's second entry in another column
  expect_error([&] { A.update_values(moved); }, "row 1 ");
  expect_error([&] { A.update_values(poisson2d(5)); }, "pattern change");
}

TEST(MatrixUpdateRefusals, KeptHostCopyFollowsTheUpdate) {
  const HostCsrMatrix host = poisson2d(6);
  MatrixOptions options;
  options.keep_host_copy = true;
  Matrix A(context(), host, Format::Csr4, options);
  std::vector<double> doubled = host.values;
  for (double& v : doubled) v *= 2;
  A.update_values(doubled);
  EXPECT_EQ(A.host_csr().values, doubled);
  EXPECT_EQ(A.to_host().values, doubled);
}

}  // namespace
}  // namespace clkr
