// GMRES and BiCGStab on non-symmetric systems: convergence in every precision and storage format
// (generated convection-diffusion and a real matrix), host reference agreement, and a singular system.
#include <gtest/gtest.h>

#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/solver/solve.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

const SolverKind nonsymmetric_solvers[] = {SolverKind::Gmres, SolverKind::BiCgStab};

template <typename T>
std::string pair_name(const ::testing::TestParamInfo<std::tuple<SolverKind, T>>& param) {
  return to_string(std::get<0>(param.param)) + "_" + to_string(std::get<1>(param.param));
}

class NonSymmetricPrecision : public ::testing::TestWithParam<std::tuple<SolverKind, Precision>> {};

TEST_P(NonSymmetricPrecision, SolvesConvectionDiffusion) {
  const auto [kind, p] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  System system(test::convection_diffusion(20, 1.0), Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  const SolveResult result = solve(kind, blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, 2 * test::condition_estimate(system.host));
  EXPECT_TRUE(system.x.is_valid(Location::Device, p));
}

TEST_P(NonSymmetricPrecision, SolvesRealNonSymmetricMatrix) {
  const std::string path = test::matrix_path("3-fs_541_1.mtx");
  if (path.empty()) GTEST_SKIP() << "3-fs_541_1.mtx not found";
  const auto [kind, p] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  System system(read_matrix_market(path), Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  const SolveResult result = solve(kind, blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, 2 * test::condition_estimate(system.host));
}

INSTANTIATE_TEST_SUITE_P(Kinds, NonSymmetricPrecision,
                         ::testing::Combine(::testing::ValuesIn(nonsymmetric_solvers),
                                            ::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double)),
                         pair_name<Precision>);

class NonSymmetricFormat : public ::testing::TestWithParam<std::tuple<SolverKind, Format>> {};

TEST_P(NonSymmetricFormat, SolvesInDoubleOnEveryFormat) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const auto [kind, format] = GetParam();
  System system(test::convection_diffusion(12, 1.5), format);
  Blas blas(test::context(), Location::Device, Precision::Double);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  const SolveResult result = solve(kind, blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-10, 2 * test::condition_estimate(system.host));
}

INSTANTIATE_TEST_SUITE_P(Kinds, NonSymmetricFormat,
                         ::testing::Combine(::testing::ValuesIn(nonsymmetric_solvers),
                                            ::testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb)),
                         pair_name<Format>);

class NonSymmetric : public ::testing::TestWithParam<SolverKind> {};

// In double the device and the host reference differ only by rounding (summation orders).
TEST_P(NonSymmetric, DeviceMatchesHostReference) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  System system(test::convection_diffusion(16, 1.0), Format::Csr);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  Blas device(test::context(), Location::Device, Precision::Double);
  const SolveResult on_device = solve(GetParam(), device, system.A, system.b, system.x, options);
  Blas host(test::context(), Location::Host, Precision::Double);
  const SolveResult on_host = solve(GetParam(), host, system.A, system.b, system.x, options);
  ASSERT_TRUE(on_device.converged()) << on_device.message;
  test::expect_solved(on_host, system, Precision::Double, 1e-10, 2 * test::condition_estimate(system.host));
  EXPECT_LE(std::abs(on_device.iterations - on_host.iterations), 3);
}

// A zero row makes A singular and b (random, with b_i != 0 there) inconsistent: ||b - A x|| >= |b_i|
// for every x, so no solver can converge, and each must say so.
TEST_P(NonSymmetric, ReportsNonConvergenceOnSingularSystem) {
  // Double, or quasi-double on a device without fp64: the floor |b_i| holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  const std::int32_t zero_row = 37;
  const HostCsrMatrix matrix = test::without_row(test::convection_diffusion(10, 1.0), zero_row);
  System system(matrix, Format::Csr);
  const std::vector<double> b = test::random_vector(matrix.rows, 5);
  system.b.assign(b);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.max_iterations = 300;
  const SolveResult result = solve(GetParam(), blas, system.A, system.b, system.x, options);
  EXPECT_FALSE(result.converged()) << result.message;
  EXPECT_GE(result.true_relative_residual, std::abs(b[zero_row]) / test::norm(b) * (1 - 1e-12));
}

INSTANTIATE_TEST_SUITE_P(Kinds, NonSymmetric, ::testing::ValuesIn(nonsymmetric_solvers), test::param_name<SolverKind>);

}  // namespace
}  // namespace clkr
