// detail::RelaxationKernels (kernels/precond/relaxation.cl and the host reference) against long double
// on random data at awkward sizes, in every precision, on the host and with both BLAS1 splits.
#include "precond/relaxation_kernels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "precond_test_support.hpp"

namespace clkr {
namespace {

using test::Config;

// Tiny sizes, vector widths +/- 1, the grid-stride group size (64) and grid (2 compute units x 2 x 64
// on PoCL) at their multiples +/- 1, and large sizes with scalar tails in the chunked split.
const std::vector<std::size_t> kSizes = {0,   1,   3,   7,   8,   9,    63,   64,   65,  127,
                                         128, 129, 255, 256, 257, 1023, 1024, 1025, 4097};

// Scalars with and without an exact binary representation, of both signs.
const std::vector<double> kScalars = {1.0, -0.7, 1.0 / 3.0};

class RelaxationKernelsTest : public ::testing::TestWithParam<test::PrecisionConfig> {
 protected:
  void SetUp() override {
    precision_ = std::get<0>(GetParam());
    config_ = std::get<1>(GetParam());
    if (test::device_lacks_fp64(config_ == Config::Host ? Location::Host : Location::Device, precision_))
      GTEST_SKIP() << "the device has no fp64";
  }

  // dinv in [0.25, 4] (an inverse diagonal), the other operands in [-1, 1].
  std::vector<double> dinv_values(std::size_t n) { return test::random_values(n, precision_, rng_, 0.25, 4.0); }
  std::vector<double> values(std::size_t n) { return test::random_values(n, precision_, rng_); }

  // |got - expected| <= tolerance(precision) * scale, element by element.
  void expect_close(const std::vector<long double>& got, const std::vector<long double>& expected,
                    const std::vector<long double>& scale, const char* what) {
    const long double tol = test::elementwise_tolerance(precision_);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_LE(std::fabs(got[i] - expected[i]), tol * scale[i])
          << what << "[" << i << "]: got " << static_cast<double>(got[i]) << ", expected "
          << static_cast<double>(expected[i]);
  }

  Precision precision_ = Precision::Single;
  Config config_ = Config::Host;
  std::mt19937_64 rng_{2024};
};

TEST_P(RelaxationKernelsTest, ScaleByDiagonalWritesEveryElementWithoutReadingZ) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  for (std::size_t n : kSizes) {
    for (double w : kScalars) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", w = " + std::to_string(w));
      Vector dinv(test::context(), dinv_values(n), "dinv"), r(test::context(), values(n), "r");
      Vector z(test::context(), n, "z");
      test::poison(z, blas);  // z is only written: a read or a missed element leaves NaN
      const auto d0 = test::read_copy(dinv, blas), r0 = test::read_copy(r, blas);
      kernels.scale_by_diagonal(w, dinv, r, z);
      std::vector<long double> expected(n), scale(n);
      for (std::size_t i = 0; i < n; ++i) {
        expected[i] = w * d0[i] * r0[i];
        scale[i] = std::fabs(expected[i]);
      }
      expect_close(test::read_copy(z, blas), expected, scale, "z");
      EXPECT_EQ(test::read_copy(dinv, blas), d0) << "dinv was modified";
      EXPECT_EQ(test::read_copy(r, blas), r0) << "r was modified";
    }
  }
  EXPECT_EQ(blas.counters().at("scale_by_diagonal").calls, kSizes.size() * kScalars.size());
}

TEST_P(RelaxationKernelsTest, AddScaledByDiagonal) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  for (std::size_t n : kSizes) {
    for (double w : kScalars) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", w = " + std::to_string(w));
      Vector dinv(test::context(), dinv_values(n), "dinv"), r(test::context(), values(n), "r");
      Vector x(test::context(), values(n), "x");
      const auto d0 = test::read_copy(dinv, blas), r0 = test::read_copy(r, blas), x0 = test::read_copy(x, blas);
      kernels.add_scaled_by_diagonal(w, dinv, r, x);
      std::vector<long double> expected(n), scale(n);
      for (std::size_t i = 0; i < n; ++i) {
        const long double step = w * d0[i] * r0[i];
        expected[i] = x0[i] + step;
        scale[i] = std::fabs(x0[i]) + std::fabs(step);
      }
      expect_close(test::read_copy(x, blas), expected, scale, "x");
      EXPECT_EQ(test::read_copy(dinv, blas), d0) << "dinv was modified";
      EXPECT_EQ(test::read_copy(r, blas), r0) << "r was modified";
    }
  }
}

TEST_P(RelaxationKernelsTest, ChebyshevUpdate) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  for (std::size_t n : kSizes) {
    for (double c1 : kScalars) {
      const double c2 = -2.5 * c1 + 0.1;
      SCOPED_TRACE("n = " + std::to_string(n) + ", c1 = " + std::to_string(c1) + ", c2 = " + std::to_string(c2));
      Vector dinv(test::context(), dinv_values(n), "dinv"), r(test::context(), values(n), "r");
      Vector d(test::context(), values(n), "d"), x(test::context(), values(n), "x");
      const auto dinv0 = test::read_copy(dinv, blas), r0 = test::read_copy(r, blas);
      const auto d0 = test::read_copy(d, blas), x0 = test::read_copy(x, blas);
      kernels.chebyshev_update(c1, c2, dinv, r, d, x);
      std::vector<long double> d_expected(n), d_scale(n), x_expected(n), x_scale(n);
      for (std::size_t i = 0; i < n; ++i) {
        const long double a = c1 * d0[i], b = c2 * dinv0[i] * r0[i];
        d_expected[i] = a + b;
        d_scale[i] = std::fabs(a) + std::fabs(b);
        x_expected[i] = x0[i] + d_expected[i];
        x_scale[i] = std::fabs(x0[i]) + d_scale[i];
      }
      expect_close(test::read_copy(d, blas), d_expected, d_scale, "d");
      expect_close(test::read_copy(x, blas), x_expected, x_scale, "x");
      EXPECT_EQ(test::read_copy(dinv, blas), dinv0) << "dinv was modified";
      EXPECT_EQ(test::read_copy(r, blas), r0) << "r was modified";
    }
  }
}

TEST_P(RelaxationKernelsTest, ChebyshevFirstDoesNotReadD) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  for (std::size_t n : kSizes) {
    for (double c2 : kScalars) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", c2 = " + std::to_string(c2));
      Vector dinv(test::context(), dinv_values(n), "dinv"), r(test::context(), values(n), "r");
      Vector d(test::context(), n, "d"), x(test::context(), values(n), "x");
      const auto dinv0 = test::read_copy(dinv, blas), r0 = test::read_copy(r, blas), x0 = test::read_copy(x, blas);
      test::poison(d, blas);  // d's old values must not be read
      kernels.chebyshev_first(c2, dinv, r, d, x);
      std::vector<long double> d_expected(n), d_scale(n), x_expected(n), x_scale(n);
      for (std::size_t i = 0; i < n; ++i) {
        d_expected[i] = c2 * dinv0[i] * r0[i];
        d_scale[i] = std::fabs(d_expected[i]);
        x_expected[i] = x0[i] + d_expected[i];
        x_scale[i] = std::fabs(x0[i]) + d_scale[i];
      }
      expect_close(test::read_copy(d, blas), d_expected, d_scale, "d");
      expect_close(test::read_copy(x, blas), x_expected, x_scale, "x");
      EXPECT_EQ(test::read_copy(dinv, blas), dinv0) << "dinv was modified";
      EXPECT_EQ(test::read_copy(r, blas), r0) << "r was modified";
    }
  }
}

// The first step from x = 0 writes d and x without reading either.
TEST_P(RelaxationKernelsTest, ChebyshevStartReadsNeitherDNorX) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  for (std::size_t n : kSizes) {
    for (double c2 : kScalars) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", c2 = " + std::to_string(c2));
      Vector dinv(test::context(), dinv_values(n), "dinv"), b(test::context(), values(n), "b");
      Vector d(test::context(), n, "d"), x(test::context(), n, "x");
      const auto dinv0 = test::read_copy(dinv, blas), b0 = test::read_copy(b, blas);
      test::poison(d, blas);
      test::poison(x, blas);
      kernels.chebyshev_start(c2, dinv, b, d, x);
      std::vector<long double> expected(n), scale(n);
      for (std::size_t i = 0; i < n; ++i) {
        expected[i] = c2 * dinv0[i] * b0[i];
        scale[i] = std::fabs(expected[i]);
      }
      expect_close(test::read_copy(d, blas), expected, scale, "d");
      expect_close(test::read_copy(x, blas), expected, scale, "x");
      EXPECT_EQ(test::read_copy(dinv, blas), dinv0) << "dinv was modified";
      EXPECT_EQ(test::read_copy(b, blas), b0) << "b was modified";
    }
  }
}

// The fused steps are what a sequence of BLAS calls would compute: a Chebyshev step from its parts
// (scale, axpy, axpy) agrees with chebyshev_update to the precision's rounding, and a step with
// c1 = 0 agrees with chebyshev_first.
TEST_P(RelaxationKernelsTest, FusedStepsMatchTheirParts) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  const std::size_t n = 1025;
  const auto dinv_v = dinv_values(n), r_v = values(n), d_v = values(n), x_v = values(n);
  Vector dinv(test::context(), dinv_v, "dinv"), r(test::context(), r_v, "r");
  Vector d1(test::context(), d_v, "d1"), x1(test::context(), x_v, "x1");
  Vector d2(test::context(), d_v, "d2"), x2(test::context(), x_v, "x2"), t(test::context(), n, "t");
  kernels.chebyshev_update(0.0, 0.75, dinv, r, d1, x1);
  kernels.chebyshev_first(0.75, dinv, r, d2, x2);
  EXPECT_EQ(test::read_copy(d1, blas), test::read_copy(d2, blas));
  EXPECT_EQ(test::read_copy(x1, blas), test::read_copy(x2, blas));
  // d = c1 d + c2 dinv r;  x += d, from BLAS calls.
  Vector d3(test::context(), d_v, "d3"), x3(test::context(), x_v, "x3");
  Vector d4(test::context(), d_v, "d4"), x4(test::context(), x_v, "x4");
  kernels.chebyshev_update(-0.4, 1.5, dinv, r, d3, x3);
  kernels.scale_by_diagonal(1.5, dinv, r, t);
  blas.aypx(-0.4, t, d4);  // d4 = -0.4 d4 + t
  blas.axpy(1.0, d4, x4);
  const auto fused_d = test::read_copy(d3, blas), parts_d = test::read_copy(d4, blas);
  const auto fused_x = test::read_copy(x3, blas), parts_x = test::read_copy(x4, blas);
  // |d| <= 0.4 + 1.5 * 4 and |x| <= 1 + |d|: both results carry a few roundings of values below 8.
  const double tol = 16 * test::elementwise_tolerance(precision_);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(static_cast<double>(fused_d[i]), static_cast<double>(parts_d[i]), tol) << "d[" << i << "]";
    ASSERT_NEAR(static_cast<double>(fused_x[i]), static_cast<double>(parts_x[i]), tol) << "x[" << i << "]";
  }
}

// A Chebyshev sweep's first correction carried by the next step (relaxation.cpp): HYB takes no fused
// epilogue, so there the residual with its correction is a residual and a scaling, and the pending d
// is added (axpy) or set (copy) before the unfused step. Both must give what the fused kernels give on
// the same matrix in CSR: r and d from the residual, then r, d' and x after a step adding d, and x
// after a last step from zero setting it.
TEST_P(RelaxationKernelsTest, CarriedCorrectionWithoutEpiloguesMatchesTheFusedKernels) {
  Blas blas = test::make_blas(config_, precision_);
  detail::RelaxationKernels kernels(blas);
  const std::size_t n = 1025;
  const HostCsrMatrix host = test::tridiagonal(static_cast<std::int32_t>(n), 2.5, -1.0);
  const auto dinv_v = dinv_values(n), b_v = values(n), x_v = values(n), d0_v = values(n);
  using Pending = detail::SpmvEpilogue::Pending;
  std::vector<std::vector<long double>> results[2];
  for (int which = 0; which < 2; ++which) {
    Matrix A(test::context(), host, which == 0 ? Format::Csr : Format::Hyb);
    Vector dinv(test::context(), dinv_v, "dinv"), b(test::context(), b_v, "b"), x(test::context(), x_v, "x");
    Vector r(test::context(), n, "r"), d(test::context(), n, "d"), d_next(test::context(), n, "d_next");
    kernels.residual_and_correction(A, b, x, r, 0.75, dinv, d);
    results[which].push_back(test::read_copy(r, blas));
    results[which].push_back(test::read_copy(d, blas));
    kernels.chebyshev_spmv_step(A, -0.4, 1.5, dinv, r, d, r, d_next, x, false, Pending::Add);
    for (Vector* v : {&r, &d_next, &x}) results[which].push_back(test::read_copy(*v, blas));
    Vector d0(test::context(), d0_v, "d0"), r0(test::context(), n, "r0"), d1(test::context(), n, "d1");
    Vector x0(test::context(), n, "x0");
    test::poison(x0, blas);  // set, never read
    kernels.chebyshev_spmv_step(A, -0.4, 1.5, dinv, b, d0, r0, d1, x0, true, Pending::Set);
    results[which].push_back(test::read_copy(x0, blas));
  }
  const char* names[] = {"residual r", "residual d", "step r", "step d'", "step x (d pending)", "x set from zero"};
  // The two differ only in the SpMV's rounding: a few roundings of the values' own size (up to ~500).
  const long double tol = 64 * test::elementwise_tolerance(precision_);
  for (std::size_t k = 0; k < results[0].size(); ++k)
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_LE(std::fabs(results[1][k][i] - results[0][k][i]), tol * (1 + std::fabs(results[0][k][i])))
          << names[k] << "[" << i << "]: HYB " << static_cast<double>(results[1][k][i]) << ", CSR "
          << static_cast<double>(results[0][k][i]);
}

INSTANTIATE_TEST_SUITE_P(AllPrecisionsAndSplits, RelaxationKernelsTest,
                         ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double),
                                            ::testing::ValuesIn(test::all_configs())),
                         test::precision_config_name);

}  // namespace
}  // namespace clkr
