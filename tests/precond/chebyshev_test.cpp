// clkr::Chebyshev: M^-1 r against a long double run of its recurrence and against the Chebyshev residual
// polynomial of its own interval, in every precision on the host and the device; the interval against
// the known spectrum of Poisson; M symmetric positive definite; refusals; update().
#include "clkr/precond/chebyshev.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

using LongVector = std::vector<long double>;

// S P S with P = poisson2d(n) and S = diag(10^u), u uniform in [-0.5, 0.5]: SPD with a diagonal that is
// not a multiple of I, so D^-1 matters.
HostCsrMatrix scaled_poisson(int n, unsigned seed) {
  HostCsrMatrix A = poisson2d(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> s(static_cast<std::size_t>(A.rows));
  for (double& e : s) e = std::pow(10.0, u(rng));
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) A.values[k] *= s[i] * s[A.col_indices[k]];
  return A;
}

LongVector inverse_diagonal(const HostCsrMatrix& A) {
  LongVector dinv(static_cast<std::size_t>(A.rows));
  const std::vector<double> d = test::host_diagonal(A);
  for (std::size_t i = 0; i < d.size(); ++i) dinv[i] = 1.0L / d[i];
  return dinv;
}

// The Chebyshev iteration of src/precond/relaxation.cpp (Saad, Iterative Methods, Alg. 12.1) for
// D^-1 A on [lower, upper], `degree` steps from x = 0, in long double:
//   theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta, rho = 1 / sigma;
//   d = D^-1 r / theta;  then  rho' = 1 / (2 sigma - rho), d = rho' rho d + (2 rho' / delta) D^-1 r,
//   rho = rho';  with x += d after each step and r -= A d between steps.
LongVector chebyshev_recurrence(const HostCsrMatrix& A, const LongVector& dinv, LongVector r, int degree,
                                long double lower, long double upper) {
  const long double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
  long double rho = 1 / sigma;
  const std::size_t n = r.size();
  LongVector x(n, 0.0L), d(n);
  for (int k = 0; k < degree; ++k) {
    if (k == 0) {
      for (std::size_t i = 0; i < n; ++i) d[i] = dinv[i] * r[i] / theta;
    } else {
      const long double rho_next = 1 / (2 * sigma - rho);
      for (std::size_t i = 0; i < n; ++i) d[i] = rho_next * rho * d[i] + 2 * rho_next / delta * dinv[i] * r[i];
      rho = rho_next;
    }
    for (std::size_t i = 0; i < n; ++i) x[i] += d[i];
    if (k + 1 < degree) {
      const LongVector Ad = test::multiply_long(A, d);
      for (std::size_t i = 0; i < n; ++i) r[i] -= Ad[i];
    }
  }
  return x;
}

// What the polynomial must do, computed another way: with B = D^-1 A and z = p(B) D^-1 r, the scaled
// residual D^-1 (r - A z) = R(B) D^-1 r where R(t) = T_k((theta - t) / delta) / T_k(sigma) is the
// Chebyshev residual polynomial of [lower, upper] (T_k by its three-term recurrence).
LongVector residual_polynomial(const HostCsrMatrix& A, const LongVector& dinv, const LongVector& r, int degree,
                               long double lower, long double upper) {
  const long double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
  const std::size_t n = r.size();
  const auto Y = [&](const LongVector& v) {  // (theta I - B) v / delta
    const LongVector Av = test::multiply_long(A, v);
    LongVector out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = (theta * v[i] - dinv[i] * Av[i]) / delta;
    return out;
  };
  LongVector previous(n), current(n);
  for (std::size_t i = 0; i < n; ++i) previous[i] = dinv[i] * r[i];  // T_0 y0 = y0
  current = Y(previous);                                             // T_1 y0
  long double t_previous = 1, t_current = sigma;                     // T_0(sigma), T_1(sigma)
  for (int k = 1; k < degree; ++k) {
    LongVector next = Y(current);
    for (std::size_t i = 0; i < n; ++i) next[i] = 2 * next[i] - previous[i];
    previous = std::move(current);
    current = std::move(next);
    const long double t_next = 2 * sigma * t_current - t_previous;
    t_previous = t_current;
    t_current = t_next;
  }
  for (long double& e : current) e /= t_current;
  return current;
}

long double distance(const LongVector& x, const LongVector& y) {
  long double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += (x[i] - y[i]) * (x[i] - y[i]);
  return std::sqrt(sum);
}

// Norm-wise accuracy of one application of `degree`, relative to the size of the result: every step
// adds a few roundings of vectors the size of z in the precision, and the matrix and r are rounded to it.
double application_tolerance(Precision p, int degree) { return 16 * degree * test::unit_roundoff(p); }

class ChebyshevApply : public ::testing::TestWithParam<test::LocationPrecision> {};

// In CSR and DIA the steps after the first run as fused SpMVs (RelaxationKernels::chebyshev_spmv_step);
// HYB takes no fused epilogue and runs them as an SpMV and an elementwise update.
TEST_P(ChebyshevApply, IsTheChebyshevPolynomialOfItsInterval) {
  const auto [location, precision] = GetParam();
  if (test::device_lacks_fp64(location, precision)) GTEST_SKIP() << "the device has no fp64";
  const HostCsrMatrix host = scaled_poisson(16, 3);
  Blas solver(test::context(), location, precision);
  const LongVector dinv = inverse_diagonal(host);
  std::mt19937_64 rng(12);
  for (const Format format : {Format::Csr, Format::Dia, Format::Hyb})
    for (int degree = 1; degree <= 6; ++degree) {
      SCOPED_TRACE(to_string(format) + ", degree " + std::to_string(degree));
      Matrix A(test::context(), host, format);
      ChebyshevOptions options;
      options.degree = degree;
      Chebyshev M(solver, A, options);
      ASSERT_GT(M.lower(), 0);
      ASSERT_LT(M.lower(), M.upper());
      const std::vector<double> r_values = test::random_values(host.rows, precision, rng);
      Vector r(test::context(), r_values, "r"), z(test::context(), host.rows, "z");
      test::poison(z, M.blas());  // z is only written
      M.apply(r, z);
      const LongVector got = test::to_long(z.to_host()), r_long = test::to_long(r_values);
      const long double z_norm = test::norm_long(got);
      const LongVector expected = chebyshev_recurrence(host, dinv, r_long, degree, M.lower(), M.upper());
      EXPECT_LE(distance(got, expected), application_tolerance(precision, degree) * z_norm);
      // D^-1 (r - A z) against R(B) D^-1 r, relative to ||D^-1 r|| (|R| <= 1 on the spectrum).
      const LongVector Az = test::multiply_long(host, got);
      LongVector scaled_residual(got.size()), y0(got.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        scaled_residual[i] = dinv[i] * (r_long[i] - Az[i]);
        y0[i] = dinv[i] * r_long[i];
      }
      const LongVector polynomial = residual_polynomial(host, dinv, r_long, degree, M.lower(), M.upper());
      EXPECT_LE(distance(scaled_residual, polynomial), application_tolerance(precision, degree) * test::norm_long(y0));
      EXPECT_EQ(test::to_long(r.to_host()), r_long) << "r was modified";
    }
}

TEST_P(ChebyshevApply, IsSymmetricPositiveDefinite) {
  const auto [location, precision] = GetParam();
  if (test::device_lacks_fp64(location, precision)) GTEST_SKIP() << "the device has no fp64";
  const HostCsrMatrix host = scaled_poisson(12, 8);
  Matrix A(test::context(), host);
  Blas solver(test::context(), location, precision);
  std::mt19937_64 rng(5);
  for (int degree = 1; degree <= 6; ++degree) {
    SCOPED_TRACE("degree " + std::to_string(degree));
    ChebyshevOptions options;
    options.degree = degree;
    Chebyshev M(solver, A, options);
    for (int trial = 0; trial < 4; ++trial) {
      const std::vector<double> r_values = test::random_values(host.rows, precision, rng);
      const std::vector<double> s_values = test::random_values(host.rows, precision, rng);
      Vector r(test::context(), r_values, "r"), s(test::context(), s_values, "s");
      Vector Mr(test::context(), host.rows, "Mr"), Ms(test::context(), host.rows, "Ms");
      M.apply(r, Mr);
      M.apply(s, Ms);
      const LongVector r_l = test::to_long(r_values), s_l = test::to_long(s_values);
      const LongVector Mr_l = test::to_long(Mr.to_host()), Ms_l = test::to_long(Ms.to_host());
      EXPECT_GT(test::dot_long(r_l, Mr_l), 0) << "r'M^-1 r";
      // (M^-1 r, s) = (r, M^-1 s) up to each application's error (application_tolerance, norm-wise).
      const long double left = test::dot_long(Mr_l, s_l), right = test::dot_long(r_l, Ms_l);
      const long double bound =
          application_tolerance(precision, degree) *
          (test::norm_long(Mr_l) * test::norm_long(s_l) + test::norm_long(r_l) * test::norm_long(Ms_l));
      EXPECT_LE(std::fabs(left - right), bound)
          << "(M^-1 r, s) = " << static_cast<double>(left) << ", (r, M^-1 s) = " << static_cast<double>(right);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HostAndDevice, ChebyshevApply,
                         ::testing::Combine(::testing::Values(Location::Host, Location::Device),
                                            ::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double)),
                         test::location_precision_name);

TEST(Chebyshev, IntervalEnclosesThePoissonSpectrum) {
  const int n = 24;
  Matrix A(test::context(), poisson2d(n));
  const double lambda_min = test::poisson_jacobi_lambda_min(n), lambda_max = test::poisson_jacobi_lambda_max(n);
  for (Location location : {Location::Host, Location::Device}) {
    for (Precision p : {Precision::Single, Precision::Double}) {
      SCOPED_TRACE(to_string(location) + " " + to_string(p));
      if (test::device_lacks_fp64(location, p)) continue;
      Blas solver(test::context(), location, p);
      // A Ritz value may sit outside the spectrum by rounding only.
      const double margin = test::ritz_margin(p, lambda_max);
      Chebyshev M(solver, A);
      EXPECT_GE(M.upper(), lambda_max) << "M would be indefinite for even degrees";
      EXPECT_LE(M.upper(), 1.1 * (lambda_max + margin)) << "upper = 1.1 x a Ritz value <= lambda_max";
      EXPECT_GE(M.lower(), lambda_min - margin) << "lower is the smallest Ritz value";
      EXPECT_LT(M.lower(), M.upper());
      EXPECT_NE(M.description().find("degree 4"), std::string::npos) << M.description();
      // A smoother's interval: the top 1/30 only.
      ChebyshevOptions smoother;
      smoother.lower_ratio = 1.0 / 30;
      Chebyshev S(solver, A, smoother);
      EXPECT_DOUBLE_EQ(S.lower(), S.upper() / 30);
      EXPECT_GE(S.upper(), lambda_max);
      // Gershgorin's bound instead of Lanczos: max (4 + 4) / 4 = 2 for poisson2d.
      ChebyshevOptions gershgorin;
      gershgorin.eigen_iterations = 0;
      gershgorin.lower_ratio = 0.1;
      Chebyshev G(solver, A, gershgorin);
      EXPECT_EQ(G.upper(), 2.0);
      EXPECT_DOUBLE_EQ(G.lower(), 0.2);
    }
  }
}

TEST(Chebyshev, PreconditionerPrecisionMayDifferFromTheSolvers) {
  const HostCsrMatrix host = scaled_poisson(10, 4);
  Matrix A(test::context(), host);
  Blas solver(test::context(), Location::Device, Precision::QuasiDouble);
  ChebyshevOptions options;
  options.degree = 3;
  Chebyshev M(solver, A, options, Precision::Single);
  EXPECT_EQ(M.precision(), Precision::Single);
  std::mt19937_64 rng(1);
  const std::vector<double> r_values = test::random_values(host.rows, Precision::Single, rng);
  Vector r(test::context(), r_values, "r"), z(test::context(), host.rows, "z");
  M.apply(r, z);
  EXPECT_TRUE(z.is_valid(Location::Device, Precision::Single));
  const LongVector got = test::to_long(z.to_host());
  const LongVector expected =
      chebyshev_recurrence(host, inverse_diagonal(host), test::to_long(r_values), 3, M.lower(), M.upper());
  EXPECT_LE(distance(got, expected), application_tolerance(Precision::Single, 3) * test::norm_long(got));
}

// With binary16 values (ValueStorage::Half) the polynomial is the one of the matrix as rounded to
// binary16 at its scale (D^-1 stays the one of A's own diagonal), to single precision's accuracy; the
// rounding is far from it, so a kernel that read the single values would fail.
TEST(Chebyshev, HalfValuesApplyThePolynomialOfTheRoundedMatrix) {
  const HostCsrMatrix host = scaled_poisson(10, 4);
  Blas solver(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  for (const Format format : {Format::Csr, Format::Dia}) {
    SCOPED_TRACE(to_string(format));
    Matrix A(test::context(), host, format);
    ChebyshevOptions options;
    options.degree = 3;
    Chebyshev M(solver, A, options, Precision::Single, ValueStorage::Half);
    EXPECT_EQ(M.matrix_values(), ValueStorage::Half);
    EXPECT_NE(M.description().find("single, half values"), std::string::npos) << M.description();
    const Matrix::Values values = format == Format::Csr ? A.csr_values(Precision::Single, ValueStorage::Half)
                                                        : A.dia_values(Precision::Single, ValueStorage::Half);
    ASSERT_EQ(values.storage, ValueStorage::Half);
    const HostCsrMatrix rounded = test::half_rounded(host, values.unscale);
    std::mt19937_64 rng(1);
    const std::vector<double> r_values = test::random_values(host.rows, Precision::Single, rng);
    Vector r(test::context(), r_values, "r"), z(test::context(), host.rows, "z");
    M.apply(r, z);
    const LongVector got = test::to_long(z.to_host()), r_long = test::to_long(r_values);
    const LongVector dinv = inverse_diagonal(host);
    const long double tolerance = application_tolerance(Precision::Single, 3) * test::norm_long(got);
    EXPECT_LE(distance(got, chebyshev_recurrence(rounded, dinv, r_long, 3, M.lower(), M.upper())), tolerance);
    EXPECT_GT(distance(got, chebyshev_recurrence(host, dinv, r_long, 3, M.lower(), M.upper())), 10 * tolerance);
  }
}

TEST(Chebyshev, RefusesOptionsOutOfRange) {
  Matrix A(test::context(), poisson2d(6));
  Blas solver(test::context(), Location::Device, Precision::Single);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto with = [](auto set) {
    ChebyshevOptions o;
    set(o);
    return o;
  };
  const std::vector<std::pair<ChebyshevOptions, std::string>> cases = {
      {with([](ChebyshevOptions& o) { o.degree = 0; }), "degree"},
      {with([](ChebyshevOptions& o) { o.degree = -2; }), "degree"},
      {with([](ChebyshevOptions& o) { o.eigen_iterations = 1; }), "eigen_iterations"},
      {with([](ChebyshevOptions& o) { o.eigen_iterations = -1; }), "eigen_iterations"},
      {with([](ChebyshevOptions& o) { o.upper_safety = 0.99; }), "upper_safety"},
      {with([&](ChebyshevOptions& o) { o.upper_safety = nan; }), "upper_safety"},
      {with([](ChebyshevOptions& o) { o.lower_ratio = -0.01; }), "lower_ratio"},
      {with([](ChebyshevOptions& o) { o.lower_ratio = 1.0; }), "lower_ratio"},
      {with([&](ChebyshevOptions& o) { o.lower_ratio = nan; }), "lower_ratio"},
      // Gershgorin bounds only the top: the bottom then needs lower_ratio.
      {with([](ChebyshevOptions& o) { o.eigen_iterations = 0; }), "lower_ratio"},
  };
  for (const auto& [bad, needle] : cases) {
    SCOPED_TRACE(needle);
    const ChebyshevOptions& options = bad;  // a lambda may not capture a structured binding in C++17
    test::expect_error_naming([&] { Chebyshev M(solver, A, options); }, needle);
  }
  // The edges of the ranges are accepted.
  ChebyshevOptions edges;
  edges.degree = 1;
  edges.eigen_iterations = 2;
  edges.upper_safety = 1.0;
  edges.lower_ratio = 0.0;
  EXPECT_NO_THROW(Chebyshev(solver, A, edges));
}

TEST(Chebyshev, RefusesANonPositiveDiagonalNamingTheRow) {
  // Refusals do not depend on the precision: double, or quasi-double on a device without fp64.
  Blas solver(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  for (double bad : {-1.0, 0.0}) {
    HostCsrMatrix host = poisson2d(6);
    for (std::int32_t k = host.row_offsets[9]; k < host.row_offsets[10]; ++k)
      if (host.col_indices[k] == 9) host.values[k] = bad;
    Matrix A(test::context(), host);
    test::expect_error_naming([&] { Chebyshev M(solver, A); }, "A(9,9)");
  }
}

// Scaling A by 2 scales D by 2 and leaves D^-1 A, and so the Lanczos estimate from the same seed,
// unchanged; M^-1 = p(D^-1 A) D^-1 halves. Multiplying by a power of two is exact in every precision
// (quasi-double scales head and tail), so every intermediate value is scaled exactly: the interval
// must stay bit for bit, and M^-1 r must halve bit for bit. Binary16 values (single precision on the
// device) too: their copy's scale moves by one binade and rounds the same digits.
TEST(Chebyshev, UpdateAfterScalingAByTwoHalvesTheResult) {
  const HostCsrMatrix host = scaled_poisson(12, 6);
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  for (Location location : {Location::Host, Location::Device}) {
    const std::pair<Precision, ValueStorage> cases[] = {{Precision::Single, ValueStorage::Working},
                                                        {Precision::QuasiDouble, ValueStorage::Working},
                                                        {Precision::Double, ValueStorage::Working},
                                                        {Precision::Single, ValueStorage::Half}};
    for (const auto& [p, storage] : cases) {
      SCOPED_TRACE(to_string(location) + " " + to_string(p) + " " + to_string(storage));
      if (test::device_lacks_fp64(location, p)) continue;
      Matrix A(test::context(), host);
      Blas solver(test::context(), location, p);
      Chebyshev M(solver, A, {}, std::nullopt, storage);
      std::mt19937_64 rng(3);
      Vector r(test::context(), test::random_values(host.rows, p, rng), "r"), z(test::context(), host.rows, "z");
      M.apply(r, z);
      const std::vector<double> before = z.to_host();
      const double lower = M.lower(), upper = M.upper();
      A.update_values(doubled.values);
      M.update(A);
      EXPECT_EQ(M.lower(), lower);
      EXPECT_EQ(M.upper(), upper);
      M.apply(r, z);
      const std::vector<double> after = z.to_host();
      for (std::size_t i = 0; i < after.size(); ++i) ASSERT_EQ(after[i], before[i] / 2) << "z[" << i << "]";
      EXPECT_FALSE(M.update_phases().empty());
    }
  }
}

// A new spectrum after update(): halving the off-diagonal entries of poisson2d maps the spectrum of
// D^-1 A = I - N to I - N / 2, i.e. [1 - c/2, 1 + c/2] with c = cos(pi h).
TEST(Chebyshev, UpdateFollowsANewSpectrum) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const int n = 16;
  const HostCsrMatrix host = poisson2d(n);
  HostCsrMatrix damped = host;
  for (std::int32_t i = 0; i < damped.rows; ++i)
    for (std::int32_t k = damped.row_offsets[i]; k < damped.row_offsets[i + 1]; ++k)
      if (damped.col_indices[k] != i) damped.values[k] /= 2;
  Matrix A(test::context(), host);
  Blas solver(test::context(), Location::Device, Precision::Double);
  Chebyshev M(solver, A);
  EXPECT_GE(M.upper(), test::poisson_jacobi_lambda_max(n));
  A.update_values(damped.values);
  M.update(A);
  const double c = std::cos(M_PI / (n + 1)), margin = 1e-12;
  EXPECT_GE(M.upper(), 1 + c / 2);
  EXPECT_LE(M.upper(), 1.1 * (1 + c / 2) + margin);
  EXPECT_GE(M.lower(), 1 - c / 2 - margin);
  // And M^-1 is the new polynomial of the new matrix.
  std::mt19937_64 rng(2);
  const std::vector<double> r_values = test::random_values(host.rows, Precision::Double, rng);
  Vector r(test::context(), r_values, "r"), z(test::context(), host.rows, "z");
  M.apply(r, z);
  const LongVector expected =
      chebyshev_recurrence(damped, inverse_diagonal(damped), test::to_long(r_values), 4, M.lower(), M.upper());
  const LongVector got = test::to_long(z.to_host());
  EXPECT_LE(distance(got, expected), application_tolerance(Precision::Double, 4) * test::norm_long(got));
}

}  // namespace
}  // namespace clkr
