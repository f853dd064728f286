// detail::tridiagonal_extremes against closed forms and a dense Jacobi eigenvalue reference,
// detail::gershgorin_bound by hand, and detail::estimate_spectrum's Ritz values on Poisson problems
// (whose spectrum of D^-1 A is known in closed form) on the host and the device, and its refusals.
#include "precond/spectrum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

using test::kU;

// The eigenvalues of the dense symmetric n x n matrix `a` (row-major), ascending, by cyclic Jacobi
// rotations in long double until the off-diagonal part is negligible (Golub and Van Loan, 8.5).
std::vector<long double> jacobi_eigenvalues(std::vector<long double> a, int n) {
  // A macro rather than a lambda: the tests compile at -O0 under ASan in CI, where a call per element
  // made this reference a fifth of the preconditioner tests' time.
  long double* const data = a.data();
#define at(i, j) data[static_cast<std::size_t>(i) * n + (j)]
  for (int sweep = 0; sweep < 100; ++sweep) {
    long double off = 0, total = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) (i == j ? total : off) += at(i, j) * at(i, j);
    if (off <= 1e-40L * (total + off)) break;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        if (at(p, q) == 0) continue;
        // The rotation J (c, s) with (J' A J)_pq = 0.
        const long double theta = (at(q, q) - at(p, p)) / (2 * at(p, q));
        const long double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const long double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // A J
          const long double kp = at(k, p), kq = at(k, q);
          at(k, p) = c * kp - s * kq;
          at(k, q) = s * kp + c * kq;
        }
        for (int k = 0; k < n; ++k) {  // J' (A J)
          const long double pk = at(p, k), qk = at(q, k);
          at(p, k) = c * pk - s * qk;
          at(q, k) = s * pk + c * qk;
        }
      }
    }
  }
  std::vector<long double> eigenvalues(n);
  for (int i = 0; i < n; ++i) eigenvalues[i] = at(i, i);
#undef at
  std::sort(eigenvalues.begin(), eigenvalues.end());
  return eigenvalues;
}

std::vector<long double> tridiagonal_eigenvalues(const std::vector<double>& a, const std::vector<double>& b) {
  const int n = static_cast<int>(a.size());
  std::vector<long double> dense(static_cast<std::size_t>(n) * n, 0.0L);
  for (int i = 0; i < n; ++i) {
    dense[static_cast<std::size_t>(i) * n + i] = a[i];
    if (i + 1 < n)
      dense[static_cast<std::size_t>(i) * n + i + 1] = dense[static_cast<std::size_t>(i + 1) * n + i] = b[i];
  }
  return jacobi_eigenvalues(dense, n);
}

// Bisection on Sturm sequences is backward stable: the computed eigenvalues are those of a matrix within
// a few n u ||T|| of T; plus its stopping width, documented as ~1e-12 relative.
double bisection_tolerance(std::size_t n, double eigenvalue, double norm) {
  return 1e-12 * std::fabs(eigenvalue) + 8.0 * static_cast<double>(n) * kU * norm;
}

TEST(TridiagonalExtremes, SecondDifferenceMatrixHasItsClosedFormExtremes) {
  for (int n : {1, 2, 3, 10, 100, 1000}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<double> a(n, 2.0), b(n - 1, -1.0);
    // Eigenvalues 2 - 2 cos(k pi / (n + 1)), k = 1 .. n.
    const double lo = 2 - 2 * std::cos(M_PI / (n + 1)), hi = 2 - 2 * std::cos(n * M_PI / (n + 1));
    const auto [got_lo, got_hi] = detail::tridiagonal_extremes(a, b);
    EXPECT_NEAR(got_lo, lo, bisection_tolerance(n, lo, 4));
    EXPECT_NEAR(got_hi, hi, bisection_tolerance(n, hi, 4));
  }
}

TEST(TridiagonalExtremes, JacobiReferenceAgreesWithTheClosedForm) {
  // The dense reference itself, on the same matrix: every eigenvalue, not only the extremes.
  const int n = 12;
  const auto eigenvalues = tridiagonal_eigenvalues(std::vector<double>(n, 2.0), std::vector<double>(n - 1, -1.0));
  for (int k = 1; k <= n; ++k)
    EXPECT_NEAR(static_cast<double>(eigenvalues[k - 1]), 2 - 2 * std::cos(k * M_PI / (n + 1)), 1e-15);
}

TEST(TridiagonalExtremes, RandomSymmetricTridiagonalsMatchTheDenseReference) {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial);
    std::vector<double> a(n), b(n - 1);
    for (double& e : a) e = 3 * u(rng) + (trial % 3 == 0 ? 10 : 0);  // some positive definite, some not
    for (double& e : b) e = 2 * u(rng);
    if (trial % 4 == 1 && n > 4) b[n / 2] = 0;  // decoupled blocks
    if (trial % 5 == 2) std::fill(a.begin(), a.end(), 1.5);
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto reference = tridiagonal_eigenvalues(a, b);
    double norm = 0;
    for (long double e : reference) norm = std::max(norm, static_cast<double>(std::fabs(e)));
    const auto [lo, hi] = detail::tridiagonal_extremes(a, b);
    const double ref_lo = static_cast<double>(reference.front()), ref_hi = static_cast<double>(reference.back());
    EXPECT_NEAR(lo, ref_lo, bisection_tolerance(n, ref_lo, norm));
    EXPECT_NEAR(hi, ref_hi, bisection_tolerance(n, ref_hi, norm));
  }
}

TEST(TridiagonalExtremes, EmptyAndOneByOne) {
  EXPECT_EQ(detail::tridiagonal_extremes({}, {}), std::make_pair(0.0, 0.0));
  const auto [lo, hi] = detail::tridiagonal_extremes({-3.25}, {});
  EXPECT_NEAR(lo, -3.25, bisection_tolerance(1, 3.25, 3.25));
  EXPECT_NEAR(hi, -3.25, bisection_tolerance(1, 3.25, 3.25));
}

TEST(GershgorinBound, ByHand) {
  // row 0: 4, -1, 0, 2     sum |a| = 7, |a_00| = 4: 1.75
  // row 1: -1, -5, 3       sum 9, |a_11| = 5: 1.8 (the absolute value of a negative diagonal)
  // row 2: 3, 2, 1 (cols 1, 2, 3)   sum 6, a_22 = 2: 3      <- the bound
  // row 3: 1 (col 0), no diagonal: skipped (its sum alone would be infinite)
  // row 4: empty: skipped
  // row 5: 0.5 on the diagonal only: 1
  HostCsrMatrix A;
  A.rows = A.cols = 6;
  A.row_offsets = {0, 3, 6, 9, 10, 10, 11};
  A.col_indices = {0, 1, 3, 0, 1, 2, 1, 2, 3, 0, 5};
  A.values = {4, -1, 2, -1, -5, 3, 3, 2, 1, 1, 0.5};
  A.validate();
  EXPECT_EQ(detail::gershgorin_bound(A), 3.0);
  // The interior rows of the Poisson stencils: (4 + 4) / 4 and (6 + 6) / 6.
  EXPECT_EQ(detail::gershgorin_bound(poisson2d(7)), 2.0);
  EXPECT_EQ(detail::gershgorin_bound(poisson3d(4)), 2.0);
  EXPECT_EQ(detail::gershgorin_bound(HostCsrMatrix{}), 0.0);
}

// ---- estimate_spectrum ----------------------------------------------------------------------------

// The spectrum estimate of D^-1 A for a Poisson matrix on `blas`, 1 / diag(A) computed here.
detail::SpectrumEstimate estimate(Blas& blas, const HostCsrMatrix& host, int steps, std::uint64_t seed = 1) {
  Matrix A(test::context(), host);
  std::vector<double> dinv = test::host_diagonal(host);
  for (double& d : dinv) d = 1 / d;
  Vector v(test::context(), dinv, "dinv");
  return detail::estimate_spectrum(blas, A, v, steps, seed, "test");
}

class EstimateSpectrum : public ::testing::TestWithParam<test::LocationPrecision> {};

// In exact arithmetic the Ritz values lie inside [lambda_min, lambda_max] and move outwards with every
// step. How close 20 steps get from a random start is not something Kaniel-Paige theory bounds usefully
// at these sizes (hundreds of eigenvalues packed near both ends); what clkr relies on is that the
// largest is close enough for upper_safety = 1.1 to cover lambda_max. Asserted: both extremes within 2%
// of the width of the spectrum (the Chebyshev preconditioner's default safety factor allows 9%).
constexpr double kRitzCloseness = 0.02;

TEST_P(EstimateSpectrum, RitzValuesLieInsideAndNearThePoissonSpectrum) {
  const auto [location, precision] = GetParam();
  if (test::device_lacks_fp64(location, precision)) GTEST_SKIP() << "the device has no fp64";
  Blas blas(test::context(), location, precision);
  for (const auto& [name, host, n] :
       {std::make_tuple("poisson2d:24", poisson2d(24), 24), std::make_tuple("poisson3d:9", poisson3d(9), 9)}) {
    SCOPED_TRACE(name);
    const double lambda_min = test::poisson_jacobi_lambda_min(n), lambda_max = test::poisson_jacobi_lambda_max(n);
    const detail::SpectrumEstimate e = estimate(blas, host, 20);
    EXPECT_EQ(e.steps, 20);
    const double margin = test::ritz_margin(precision, lambda_max);
    EXPECT_GE(e.lambda_min, lambda_min - margin);
    EXPECT_LE(e.lambda_max, lambda_max + margin);
    const double width = lambda_max - lambda_min;
    EXPECT_LE(e.lambda_min - lambda_min, kRitzCloseness * width) << "smallest Ritz value " << e.lambda_min;
    EXPECT_LE(lambda_max - e.lambda_max, kRitzCloseness * width) << "largest Ritz value " << e.lambda_max;
  }
}

TEST_P(EstimateSpectrum, RitzValuesMoveOutwardsWithMoreSteps) {
  const auto [location, precision] = GetParam();
  if (test::device_lacks_fp64(location, precision)) GTEST_SKIP() << "the device has no fp64";
  Blas blas(test::context(), location, precision);
  const HostCsrMatrix host = poisson2d(20);
  const double margin = test::ritz_margin(precision, 2.0);
  detail::SpectrumEstimate previous = estimate(blas, host, 2);
  EXPECT_EQ(previous.steps, 2);
  for (int steps : {3, 5, 8, 13, 21, 34}) {
    SCOPED_TRACE("steps = " + std::to_string(steps));
    // The same start vector (seed): T_k is the leading block of T_steps, so by Cauchy interlacing its
    // extreme eigenvalues can only move outwards.
    const detail::SpectrumEstimate e = estimate(blas, host, steps);
    EXPECT_EQ(e.steps, steps);
    EXPECT_LE(e.lambda_min, previous.lambda_min + margin);
    EXPECT_GE(e.lambda_max, previous.lambda_max - margin);
    previous = e;
  }
}

INSTANTIATE_TEST_SUITE_P(HostAndDevice, EstimateSpectrum,
                         ::testing::Combine(::testing::Values(Location::Host, Location::Device),
                                            ::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double)),
                         test::location_precision_name);

TEST(EstimateSpectrumAgreement, HostAndDeviceGiveTheSameRitzValuesInDouble) {
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  Blas host(test::context(), Location::Host, Precision::Double);
  Blas device(test::context(), Location::Device, Precision::Double);
  const HostCsrMatrix A = poisson3d(10);
  const detail::SpectrumEstimate h = estimate(host, A, 20, 5), d = estimate(device, A, 20, 5);
  EXPECT_EQ(h.steps, d.steps);
  EXPECT_NEAR(h.lambda_min, d.lambda_min, 1e-10);
  EXPECT_NEAR(h.lambda_max, d.lambda_max, 1e-10);
  // Another seed starts elsewhere: different Ritz values, both still inside the spectrum.
  const detail::SpectrumEstimate other = estimate(device, A, 20, 6);
  EXPECT_NE(other.lambda_min, d.lambda_min);
  EXPECT_GE(other.lambda_min, test::poisson_jacobi_lambda_min(10) - 1e-12);
  EXPECT_LE(other.lambda_max, test::poisson_jacobi_lambda_max(10) + 1e-12);
}

TEST(EstimateSpectrumExhaustion, StopsEarlyWithTheExactExtremes) {
  for (Location location : {Location::Host, Location::Device}) {
    SCOPED_TRACE(to_string(location));
    if (test::device_lacks_fp64(location, Precision::Double)) GTEST_SKIP() << "the device has no fp64";
    // In double, where the residual of an exhausted space (~1e-16 relative) falls below the 1e-14
    // relative norm at which Lanczos stops.
    Blas blas(test::context(), location, Precision::Double);
    // poisson2d(3): D^-1 A = I - (cos(i pi/4) + cos(j pi/4)) / 2 has 5 distinct eigenvalues, so a
    // Krylov space has at most 5 dimensions and Lanczos ends after 5 steps with the extremes
    // 1 -+ cos(pi / 4).
    const detail::SpectrumEstimate e = estimate(blas, poisson2d(3), 20);
    EXPECT_EQ(e.steps, 5);
    const double lo = test::poisson_jacobi_lambda_min(3), hi = test::poisson_jacobi_lambda_max(3);
    EXPECT_NEAR(e.lambda_min, lo, bisection_tolerance(5, lo, hi));
    EXPECT_NEAR(e.lambda_max, hi, bisection_tolerance(5, hi, hi));
    // A diagonal matrix: D^-1 A = I, one eigenvalue, one step.
    HostCsrMatrix diagonal;
    diagonal.rows = diagonal.cols = 4;
    diagonal.row_offsets = {0, 1, 2, 3, 4};
    diagonal.col_indices = {0, 1, 2, 3};
    diagonal.values = {2, 3, 5, 7};
    const detail::SpectrumEstimate one = estimate(blas, diagonal, 20);
    EXPECT_EQ(one.steps, 1);
    EXPECT_NEAR(one.lambda_min, 1.0, bisection_tolerance(1, 1, 1));
    EXPECT_NEAR(one.lambda_max, 1.0, bisection_tolerance(1, 1, 1));
  }
}

// Expects estimate_spectrum to refuse A (with dinv = 1 / diag(A)) with clkr::Error naming `who`.
// In double on the host, and in the device's widest precision (quasi-double without fp64): the refusal
// does not depend on double's 53 bits.
void expect_not_spd(const HostCsrMatrix& host, Location location) {
  Blas blas(test::context(), location,
            location == Location::Host ? Precision::Double : test::widest_device_precision(*test::context()));
  try {
    const detail::SpectrumEstimate e = estimate(blas, host, 20);
    ADD_FAILURE() << "no clkr::Error; Ritz values [" << e.lambda_min << ", " << e.lambda_max << "] after " << e.steps
                  << " steps";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

// tridiag(-3, 2, -3): a positive diagonal but eigenvalues 2 - 6 cos(k pi / (n + 1)) of both signs. As soon
// as a Ritz value is negative, the newest pivot of T (1 / alpha = p'Ap / r'z) is negative: p'Ap < 0.
HostCsrMatrix indefinite_tridiagonal(std::int32_t n) { return test::tridiagonal(n, 2.0, -3.0); }

TEST(EstimateSpectrumRefusals, IndefiniteMatrixWithPositiveDiagonal) {
  for (Location location : {Location::Host, Location::Device}) expect_not_spd(indefinite_tridiagonal(50), location);
}

TEST(EstimateSpectrumRefusals, NegativeDefiniteDiagonal) {
  HostCsrMatrix negative = poisson2d(8);
  for (double& v : negative.values) v = -v;  // r'D^-1 r < 0 from the first step
  for (Location location : {Location::Host, Location::Device}) expect_not_spd(negative, location);
}

TEST(EstimateSpectrumRefusals, OneNegativeDiagonalEntry) {
  // poisson2d(8) with a_37,37 = -4: e_37' A e_37 < 0, so A is not SPD, and D is indefinite.
  HostCsrMatrix A = poisson2d(8);
  for (std::int32_t k = A.row_offsets[37]; k < A.row_offsets[38]; ++k)
    if (A.col_indices[k] == 37) A.values[k] = -4;
  for (Location location : {Location::Host, Location::Device}) expect_not_spd(A, location);
}

}  // namespace
}  // namespace clkr
