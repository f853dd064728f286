// CG: convergence in every precision and storage format on Poisson and a real SPD matrix, the
// quasi-double versus single accuracy gap, device versus host reference, and the not-SPD breakdown.
#include "clkr/solver/cg.hpp"

#include <gtest/gtest.h>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

class CgPrecision : public ::testing::TestWithParam<Precision> {};

TEST_P(CgPrecision, SolvesPoisson2d) {
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const int n = 24;
  System system(poisson2d(n), Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, test::poisson2d_condition(n));
  EXPECT_TRUE(system.x.is_valid(Location::Device, p));
  // CG's error bound in the A-norm, 2 sqrt(kappa) ((sqrt(kappa) - 1) / (sqrt(kappa) + 1))^k, gives the
  // iterations exact arithmetic needs at most; finite precision may add a few.
  const double sqrt_kappa = std::sqrt(test::poisson2d_condition(n));
  const double bound = std::log(2 * sqrt_kappa * sqrt_kappa / options.relative_tolerance) /
                       -std::log((sqrt_kappa - 1) / (sqrt_kappa + 1));
  EXPECT_LE(result.iterations, bound * 1.2) << "bound " << bound;
  EXPECT_GT(result.iterations, 10);
}

TEST_P(CgPrecision, SolvesRealSpdMatrix) {
  const std::string path = test::matrix_path("gr_30_30.mtx");
  if (path.empty()) GTEST_SKIP() << "gr_30_30.mtx not found";
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  System system(read_matrix_market(path), Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, 2 * test::condition_estimate(system.host));
}

INSTANTIATE_TEST_SUITE_P(Precisions, CgPrecision,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         test::param_name<Precision>);

class CgFormat : public ::testing::TestWithParam<Format> {};

TEST_P(CgFormat, SolvesInDoubleOnEveryFormat) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const Format format = GetParam();
  Blas blas(test::context(), Location::Device, Precision::Double);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  {
    System system(poisson2d(20), format);
    const SolveResult result = cg(blas, system.A, system.b, system.x, options);
    test::expect_solved(result, system, Precision::Double, 1e-10, test::poisson2d_condition(20));
  }
  const std::string path = test::matrix_path("gr_30_30.mtx");
  if (path.empty()) GTEST_SKIP() << "gr_30_30.mtx not found";
  System system(read_matrix_market(path), format);
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-10, 2 * test::condition_estimate(system.host));
}

INSTANTIATE_TEST_SUITE_P(Formats, CgFormat,
                         ::testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell,
                                           Format::Dia),
                         test::param_name<Format>);

// Single precision's residual floor is near u_single * kappa-ish: asked for 1e-12 it cannot get there,
// and the explicit residual check says so (Stagnated) instead of trusting the drifting recursive
// residual; quasi-double on the same system gets there.
TEST(Cg, QuasiDoubleReachesWhatSingleCannot) {
  System system(poisson2d(32), Format::Csr);
  SolveOptions options;
  options.relative_tolerance = 5e-13;

  Blas single(test::context(), Location::Device, Precision::Single);
  const SolveResult single_result = cg(single, system.A, system.b, system.x, options);
  EXPECT_FALSE(single_result.converged());
  EXPECT_EQ(single_result.status, SolveStatus::Stagnated) << single_result.message;
  EXPECT_GT(single_result.true_relative_residual, 1e-9);
  EXPECT_LT(single_result.true_relative_residual, 1e-4);

  Blas quasi_double(test::context(), Location::Device, Precision::QuasiDouble);
  const SolveResult qd_result = cg(quasi_double, system.A, system.b, system.x, options);
  EXPECT_TRUE(qd_result.converged()) << qd_result.message;
  EXPECT_LE(qd_result.true_relative_residual, 1e-12);
  EXPECT_LE(test::relative_error(system.x.to_host(), system.x_true),
            test::poisson2d_condition(32) * (qd_result.true_relative_residual + 1.2e-16));
}

// The device and the host reference run the same algorithm: in double their iteration counts can
// differ only through rounding (different summation orders in the dot products); the host reference
// solves in every precision.
TEST(Cg, DeviceMatchesHostReference) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  System system(poisson2d(24), Format::Csr);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  Blas device(test::context(), Location::Device, Precision::Double);
  const SolveResult on_device = cg(device, system.A, system.b, system.x, options);
  ASSERT_TRUE(on_device.converged()) << on_device.message;
  const std::vector<double> x_device = system.x.to_host();
  for (Precision p : {Precision::Double, Precision::QuasiDouble, Precision::Single}) {
    Blas host(test::context(), Location::Host, p);
    options.relative_tolerance = tolerance_for(p);
    const SolveResult on_host = cg(host, system.A, system.b, system.x, options);
    test::expect_solved(on_host, system, p, options.relative_tolerance, test::poisson2d_condition(24));
    if (p == Precision::Double) {
      EXPECT_LE(std::abs(on_device.iterations - on_host.iterations), 3)
          << on_device.iterations << " vs " << on_host.iterations;
      EXPECT_LE(test::relative_error(x_device, system.x.to_host()), 1e-8);
    }
  }
}

// poisson2d - 4.5 I has eigenvalues on both sides of 0 (those of poisson2d lie in (0, 8)). CG's pivots p'Ap are those
// of the LDL' factorisation of the Lanczos tridiagonal, which turns indefinite within a few steps.
TEST(Cg, ReportsNotSpdOnSymmetricIndefiniteMatrix) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  HostCsrMatrix indefinite = poisson2d(10);
  for (std::int32_t i = 0; i < indefinite.rows; ++i) {
    for (std::int32_t k = indefinite.row_offsets[i]; k < indefinite.row_offsets[i + 1]; ++k) {
      if (indefinite.col_indices[k] == i) indefinite.values[k] -= 4.5;
    }
  }
  System system(indefinite, Format::Csr);
  Blas blas(test::context(), Location::Device, widest);
  const SolveResult result = cg(blas, system.A, system.b, system.x);
  EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
  EXPECT_NE(result.message.find("not SPD"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("p'Ap"), std::string::npos) << result.message;
  EXPECT_GE(result.iterations, 0);
  EXPECT_LT(result.iterations, 20);
}

TEST(Cg, StopsAtMaxIterations) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(16), Format::Csr);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.max_iterations = 5;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::MaxIterations);
  EXPECT_EQ(result.iterations, 5);
  EXPECT_GT(result.true_relative_residual, 1e-3);
  // The recursive and the true residual agree in double this early.
  EXPECT_NEAR(result.recursive_relative_residual, result.true_relative_residual, 1e-10 * result.true_relative_residual);
}

}  // namespace
}  // namespace clkr
