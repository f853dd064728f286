// clkr::Jacobi: M^-1 r = r / diag(A) in every solver and preconditioner precision on the host and the
// device, refusals of singular or non-finite diagonals naming the row, negative entries, update(), and
// the operand checks of Preconditioner::apply and update.
#include "clkr/precond/jacobi.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/runtime/error.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

// A random sparse n x n matrix with a stored diagonal of both signs and magnitudes 10^-3 .. 10^3, a few
// off-diagonal entries per row (Jacobi must ignore them), rows sorted.
HostCsrMatrix random_matrix(std::int32_t n, unsigned seed, bool positive_diagonal) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostCsrMatrix A;
  A.rows = A.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j : {i - 7, i - 1, i, i + 2, i + 11}) {
      if (j < 0 || j >= n) continue;
      double v = u(rng);
      if (j == i) {
        v = std::pow(10.0, 3 * u(rng));
        if (!positive_diagonal && u(rng) < 0) v = -v;
      }
      A.col_indices.push_back(j);
      A.values.push_back(v);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// The value of entry (row, row) in A's CSR arrays.
double& diagonal_entry(HostCsrMatrix& A, std::int32_t row) {
  for (std::int32_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k)
    if (A.col_indices[k] == row) return A.values[k];
  throw Error("no diagonal entry in row " + std::to_string(row));
}

// Every element of z against r_i / a_ii in long double, relative to |r_i / a_ii|.
void expect_jacobi(Vector& z, const std::vector<double>& r, const std::vector<double>& diagonal, Precision p) {
  const std::vector<double> got = z.to_host();
  ASSERT_EQ(got.size(), r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    const long double expected = static_cast<long double>(r[i]) / diagonal[i];
    ASSERT_LE(std::fabs(got[i] - expected), test::elementwise_tolerance(p) * std::fabs(expected))
        << "z[" << i << "] = " << got[i] << ", expected " << static_cast<double>(expected);
  }
}

// (location, solver precision, preconditioner precision)
using JacobiParam = std::tuple<Location, Precision, Precision>;

class JacobiApply : public ::testing::TestWithParam<JacobiParam> {};

TEST_P(JacobiApply, MatchesRDividedByTheDiagonal) {
  const auto [location, solver_precision, precond_precision] = GetParam();
  if (test::device_lacks_fp64(location, solver_precision) || test::device_lacks_fp64(location, precond_precision))
    GTEST_SKIP() << "the device has no fp64";
  const HostCsrMatrix host = random_matrix(1025, 3, false);
  Matrix A(test::context(), host);
  Blas solver(test::context(), location, solver_precision);
  Jacobi M(solver, A, precond_precision);
  EXPECT_EQ(M.precision(), precond_precision);
  EXPECT_EQ(M.location(), location);
  EXPECT_EQ(M.rows(), 1025);
  EXPECT_TRUE(M.symmetric());
  EXPECT_FALSE(M.variable());
  EXPECT_EQ(M.kind(), PrecondKind::Jacobi);
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 3; ++trial) {
    // r as the solver holds it: rounded to its precision's values is what the preconditioner converts.
    const std::vector<double> r_values = test::random_values(1025, precond_precision, rng);
    Vector r(test::context(), r_values, "r"), z(test::context(), 1025, "z");
    M.apply(r, z);
    if (location == Location::Device) EXPECT_TRUE(z.is_valid(Location::Device, precond_precision));
    expect_jacobi(z, r_values, test::host_diagonal(host), precond_precision);
    EXPECT_EQ(r.to_host(), r_values) << "r was modified";
  }
  EXPECT_EQ(M.applications(), 3u);
}

std::string jacobi_param_name(const ::testing::TestParamInfo<JacobiParam>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param)) + "_precond_" +
         to_string(std::get<2>(info.param));
}

const auto kPrecisions = ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double);

INSTANTIATE_TEST_SUITE_P(EveryPrecisionPair, JacobiApply,
                         ::testing::Combine(::testing::Values(Location::Host, Location::Device), kPrecisions,
                                            kPrecisions),
                         jacobi_param_name);

TEST(Jacobi, DefaultPrecisionIsTheSolvers) {
  Matrix A(test::context(), random_matrix(50, 1, true));
  for (Precision p : {Precision::Single, Precision::QuasiDouble}) {
    Blas solver(test::context(), Location::Device, p);
    EXPECT_EQ(Jacobi(solver, A).precision(), p);
  }
}

TEST(Jacobi, ZeroOrMissingDiagonalIsRefusedNamingTheRow) {
  Blas solver(test::context(), Location::Device, Precision::Single);
  HostCsrMatrix zero = random_matrix(40, 5, true);
  diagonal_entry(zero, 7) = 0.0;  // stored, but zero
  Matrix A_zero(test::context(), zero);
  test::expect_error_naming([&] { Jacobi M(solver, A_zero); }, "A(7,7)");

  HostCsrMatrix missing = random_matrix(40, 5, true);
  // Remove row 23's diagonal entry from the pattern.
  const std::int32_t row = 23;
  for (std::int32_t k = missing.row_offsets[row]; k < missing.row_offsets[row + 1]; ++k) {
    if (missing.col_indices[k] != row) continue;
    missing.col_indices.erase(missing.col_indices.begin() + k);
    missing.values.erase(missing.values.begin() + k);
    for (std::int32_t i = row + 1; i <= missing.rows; ++i) --missing.row_offsets[i];
    break;
  }
  missing.validate();
  Matrix A_missing(test::context(), missing);
  test::expect_error_naming([&] { Jacobi M(solver, A_missing); }, "A(23,23)");
}

TEST(Jacobi, NonFiniteDiagonalIsRefusedNamingTheRow) {
  // Refusals do not depend on the precision: double, or quasi-double on a device without fp64.
  Blas solver(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  const HostCsrMatrix host = random_matrix(30, 9, true);
  Matrix A(test::context(), host);
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    std::vector<double> diagonal = test::host_diagonal(host);
    diagonal[12] = bad;
    test::expect_error_naming([&] { Jacobi M(solver, A, diagonal); }, "A(12,12)");
  }
  // A Matrix never holds NaN (refused when made), so the explicit-diagonal constructor is the way in;
  // a diagonal of the wrong length is refused too.
  HostCsrMatrix with_nan = host;
  with_nan.values[with_nan.row_offsets[12]] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Matrix(test::context(), with_nan), Error);
  test::expect_error_naming([&] { Jacobi M(solver, A, std::vector<double>(29, 1.0)); }, "29 diagonal entries");
}

TEST(Jacobi, NegativeDiagonalIsAcceptedAndReported) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  HostCsrMatrix host = random_matrix(64, 11, true);
  diagonal_entry(host, 9) = -2.5;
  diagonal_entry(host, 40) = -0.125;
  Matrix A(test::context(), host);
  for (Location location : {Location::Host, Location::Device}) {
    Blas solver(test::context(), location, Precision::Double);
    Jacobi M(solver, A);
    EXPECT_EQ(M.first_negative_row(), 9);
    EXPECT_EQ(M.first_negative_value(), -2.5);
    EXPECT_NE(M.description().find("not SPD"), std::string::npos) << M.description();
    std::mt19937_64 rng(4);
    const std::vector<double> r_values = test::random_values(64, Precision::Double, rng);
    Vector r(test::context(), r_values, "r"), z(test::context(), 64, "z");
    M.apply(r, z);
    expect_jacobi(z, r_values, test::host_diagonal(host), Precision::Double);
  }
  // A positive diagonal reports no negative row.
  Matrix positive(test::context(), random_matrix(64, 11, true));
  Blas solver(test::context(), Location::Device, Precision::Double);
  EXPECT_EQ(Jacobi(solver, positive).first_negative_row(), -1);
}

// Where A is on a device with fp64, 1 / diag(A) is computed there (one pass over the operator: no host
// copy of the diagonal or of its inverse), bit for bit the host's 1 / a_ii (OpenCL rounds double
// division correctly), in every format the scan reads, at sizes around its work-group of 256.
TEST(Jacobi, InverseDiagonalFromTheDeviceEqualsTheHostsBitForBit) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  MatrixOptions options;
  options.max_ell_fill_ratio = 10;
  for (std::int32_t n : {1, 3, 255, 257, 1023, 1025}) {
    const HostCsrMatrix host = random_matrix(n, 40 + static_cast<unsigned>(n), true);
    const std::vector<double> d = test::host_diagonal(host);
    for (Format format : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Dia}) {
      SCOPED_TRACE(to_string(format) + ", n = " + std::to_string(n));
      Matrix A(test::context(), host, format, options);
      Blas solver(test::context(), Location::Device, Precision::Double);
      Jacobi M(solver, A);
      EXPECT_EQ(M.first_negative_row(), -1);
      Vector& inverse = M.inverse_diagonal();
      EXPECT_TRUE(inverse.is_valid(Location::Device, Precision::Double));
      EXPECT_FALSE(inverse.is_valid(Location::Host, Precision::Double)) << "1 / diag(A) was computed on the host";
      const std::vector<double> got = inverse.to_host();
      ASSERT_EQ(got.size(), d.size());
      for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(got[i], 1.0 / d[i]) << "row " << i;
    }
  }
}

TEST(Jacobi, UpdateTakesTheNewDiagonal) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  HostCsrMatrix host = random_matrix(300, 21, true);
  Matrix A(test::context(), host);
  for (Location location : {Location::Host, Location::Device}) {
    SCOPED_TRACE(to_string(location));
    Blas solver(test::context(), location, Precision::Double);
    Jacobi M(solver, A);
    HostCsrMatrix changed = host;
    for (double& v : changed.values) v = 3 * v + 0.5;
    diagonal_entry(changed, 5) = -7.0;  // now a negative entry
    A.update_values(changed.values);
    M.update(A);
    EXPECT_EQ(M.first_negative_row(), 5);
    std::mt19937_64 rng(8);
    const std::vector<double> r_values = test::random_values(300, Precision::Double, rng);
    Vector r(test::context(), r_values, "r"), z(test::context(), 300, "z");
    M.apply(r, z);
    expect_jacobi(z, r_values, test::host_diagonal(changed), Precision::Double);
    // A diagonal that became zero is refused by the update, naming the row.
    HostCsrMatrix singular = changed;
    diagonal_entry(singular, 77) = 0.0;
    A.update_values(singular.values);
    test::expect_error_naming([&] { M.update(A); }, "A(77,77)");
    A.update_values(host.values);  // back for the next location
  }
}

TEST(Jacobi, ApplyChecksItsOperands) {
  // Refusals do not depend on the precision: double, or quasi-double on a device without fp64.
  Matrix A(test::context(), random_matrix(100, 2, true));
  Blas solver(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  Jacobi M(solver, A);
  Vector r(test::context(), 100, "r"), z(test::context(), 100, "z");
  Vector longer(test::context(), 101, "longer"), shorter(test::context(), 99, "shorter");
  EXPECT_THROW(M.apply(longer, z), Error);
  EXPECT_THROW(M.apply(r, shorter), Error);
  EXPECT_THROW(M.apply(r, r), Error);
  const std::shared_ptr<Context> other = Context::create();
  Vector r_other(other, 100, "r"), z_other(other, 100, "z");
  EXPECT_THROW(M.apply(r_other, z), Error);
  EXPECT_THROW(M.apply(r, z_other), Error);
  EXPECT_EQ(M.applications(), 0u) << "a refused application was counted";
  M.apply(r, z);  // the checks leave it usable
  EXPECT_EQ(M.applications(), 1u);
}

TEST(Jacobi, UpdateRefusesAnotherShape) {
  // Refusals do not depend on the precision: double, or quasi-double on a device without fp64.
  const HostCsrMatrix host = random_matrix(100, 2, true);
  Matrix A(test::context(), host);
  Blas solver(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  Jacobi M(solver, A);
  Matrix bigger(test::context(), random_matrix(101, 2, true));
  test::expect_error_naming([&] { M.update(bigger); }, "new pattern");
  // Same size, one entry fewer.
  HostCsrMatrix fewer = host;
  fewer.col_indices.pop_back();
  fewer.values.pop_back();
  --fewer.row_offsets.back();
  Matrix A_fewer(test::context(), fewer);
  test::expect_error_naming([&] { M.update(A_fewer); }, "nnz");
  const std::shared_ptr<Context> other = Context::create();
  Matrix elsewhere(other, host);
  EXPECT_THROW(M.update(elsewhere), Error);
}

TEST(Jacobi, ConstructorRefusesNonSquareOrForeignMatrices) {
  // Refusals do not depend on the precision: double, or quasi-double on a device without fp64.
  Blas solver(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  HostCsrMatrix wide = random_matrix(10, 1, true);
  wide.cols = 12;
  Matrix A_wide(test::context(), wide);
  test::expect_error_naming([&] { Jacobi M(solver, A_wide); }, "not square");
  const std::shared_ptr<Context> other = Context::create();
  Matrix elsewhere(other, random_matrix(10, 1, true));
  test::expect_error_naming([&] { Jacobi M(solver, elsewhere); }, "different contexts");
}

}  // namespace
}  // namespace clkr
