// The fourth-kind Chebyshev smoother (detail::ChebyshevRelaxation with ChebyshevKind::Fourth, the AMG's
// `chebyshev4`) against its closed form: from x = 0, one sweep of degree k leaves the error
// r_k(lambda) = W_k(1 - 2 lambda / upper) / (2k + 1) on an eigenvector of D^-1 A with eigenvalue lambda,
// W_k the Chebyshev polynomial of the fourth kind (W_0 = 1, W_1(t) = 2t + 1, W_{k+1} = 2t W_k - W_{k-1}).
// The smoother computes it by a different recurrence (Lottes' three-term steps on the vectors), so
// matching the closed form checks the coefficients. The 1D Laplacian (2 on the diagonal, -1 beside it)
// has D^-1 A's eigenpairs in closed form: lambda_j = 1 - cos(j pi / (n + 1)), v_j(i) = sin(i j pi / (n + 1)),
// and Gershgorin's bound 2 (no Lanczos steps: upper is exactly 2).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "../precision_support.hpp"
#include "precond/relaxation.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

long double fourth_kind_error(int degree, long double lambda, long double upper) {
  const long double t = 1 - 2 * lambda / upper;
  long double previous = 1, current = 2 * t + 1;  // W_0, W_1
  for (int k = 1; k < degree; ++k) {
    const long double next = 2 * t * current - previous;
    previous = current;
    current = next;
  }
  return current / (2 * degree + 1);
}

using Case = std::tuple<Precision, Location>;

class FourthKindChebyshev : public ::testing::TestWithParam<Case> {};

TEST_P(FourthKindChebyshev, OneSweepFromZeroLeavesTheClosedFormErrorOnEachEigenvector) {
  const auto [precision, location] = GetParam();
  if (location == Location::Device) CLKR_SKIP_UNLESS_AVAILABLE(test::context(), precision);
  constexpr std::int32_t n = 63;
  const HostCsrMatrix host = test::tridiagonal(n, 2.0, -1.0);
  Matrix A(test::context(), host, Format::Csr);
  Blas blas(test::context(), location, precision);
  Vector dinv(test::context(), std::vector<double>(n, 0.5), "dinv");
  const detail::SpectrumPolicy gershgorin_only{0, 1.1, 1, 0};
  const long double pi = std::acos(-1.0L);
  const double tolerance = precision == Precision::Single ? 2e-6 : precision == Precision::QuasiDouble ? 1e-12 : 1e-13;
  for (int degree = 1; degree <= 4; ++degree) {
    detail::ChebyshevRelaxation smoother(blas, A, 2.0, dinv, degree, detail::ChebyshevKind::Fourth, 1.0 / 30,
                                         gershgorin_only);
    ASSERT_EQ(smoother.upper(), 2.0);
    for (int j : {1, 5, 21, 42, 62, 63}) {
      // b = A v_j; the smoother's x = (1 - r_k(lambda_j)) v_j.
      std::vector<double> v(n), b(n);
      for (std::int32_t i = 0; i < n; ++i) v[i] = static_cast<double>(std::sin((i + 1) * j * pi / (n + 1)));
      for (std::int32_t i = 0; i < n; ++i) b[i] = 2 * v[i] - (i > 0 ? v[i - 1] : 0.0) - (i + 1 < n ? v[i + 1] : 0.0);
      const long double lambda = 1 - std::cos(j * pi / (n + 1));
      const long double kept = 1 - fourth_kind_error(degree, lambda, 2.0L);
      Vector bv(test::context(), b, "b"), x(test::context(), n, "x");
      smoother.apply(A, bv, x, true, 1);
      const std::vector<double> got = x.to_host();
      double worst = 0;
      for (std::int32_t i = 0; i < n; ++i) worst = std::max(worst, static_cast<double>(std::abs(got[i] - kept * v[i])));
      EXPECT_LT(worst, tolerance) << "degree " << degree << ", eigenvector " << j << " (lambda " << (double)lambda
                                  << ", error factor " << (double)(1 - kept) << ")";
    }
  }
}

// The error factor is at most 1/(2k + 1) in size at the top of the spectrum and below 1 on all of
// (0, upper]: the smoother never amplifies a mode (what makes it safe without a lower bound).
TEST(FourthKindChebyshevPolynomial, DampsEveryModeAndTheTopBy2kPlus1) {
  for (int degree = 1; degree <= 6; ++degree) {
    EXPECT_NEAR(static_cast<double>(std::abs(fourth_kind_error(degree, 2.0L, 2.0L))), 1.0 / (2 * degree + 1), 1e-15);
    for (int s = 1; s <= 1000; ++s)
      EXPECT_LT(std::abs(fourth_kind_error(degree, 2.0L * s / 1000, 2.0L)), 1.0L) << degree << " " << s;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Cases, FourthKindChebyshev,
                         ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double),
                                            ::testing::Values(Location::Host, Location::Device)),
                         case_name);

}  // namespace
}  // namespace clkr
