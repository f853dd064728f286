// PCG with Jacobi: convergence in every precision on a badly scaled SPD matrix (where Jacobi undoes
// the scaling) and a real one, fewer iterations than CG, host reference agreement, not-SPD cases.
#include "clkr/solver/pcg.hpp"

#include <gtest/gtest.h>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

class PcgPrecision : public ::testing::TestWithParam<Precision> {};

TEST_P(PcgPrecision, SolvesBadlyScaledPoisson) {
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const test::ScaledPoisson scaled(20);
  System system(scaled.matrix, Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  const SolveResult result = pcg_jacobi(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, scaled.kappa_bound);
  // Unpreconditioned CG given three times as many iterations does not get there.
  options.max_iterations = 3 * result.iterations;
  const SolveResult plain = cg(blas, system.A, system.b, system.x, options);
  EXPECT_EQ(plain.status, SolveStatus::MaxIterations) << plain.message;
}

TEST_P(PcgPrecision, SolvesRealSpdMatrixFasterThanCg) {
  const std::string path = test::matrix_path("494_bus.mtx");
  if (path.empty()) GTEST_SKIP() << "494_bus.mtx not found";
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  System system(read_matrix_market(path), Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  // 494_bus has kappa ~ 2.4e6: single precision cannot promise more than ~1e-3 relative error.
  options.relative_tolerance = p == Precision::Single ? 1e-4 : 1e-10;
  const SolveResult result = pcg_jacobi(blas, system.A, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, 2 * test::condition_estimate(system.host));
  const SolveResult plain = cg(blas, system.A, system.b, system.x, options);
  EXPECT_LT(2 * result.iterations, plain.iterations) << plain.message;
}

INSTANTIATE_TEST_SUITE_P(Precisions, PcgPrecision,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         test::param_name<Precision>);

TEST(Pcg, DeviceMatchesHostReference) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const test::ScaledPoisson scaled(16);
  System system(scaled.matrix, Format::Ell);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  Blas device(test::context(), Location::Device, Precision::Double);
  const SolveResult on_device = pcg_jacobi(device, system.A, system.b, system.x, options);
  ASSERT_TRUE(on_device.converged()) << on_device.message;
  for (Precision p : {Precision::Double, Precision::Single}) {
    Blas host(test::context(), Location::Host, p);
    options.relative_tolerance = tolerance_for(p);
    const SolveResult on_host = pcg_jacobi(host, system.A, system.b, system.x, options);
    test::expect_solved(on_host, system, p, options.relative_tolerance, scaled.kappa_bound);
    if (p == Precision::Double) {
      EXPECT_LE(std::abs(on_device.iterations - on_host.iterations), 3);
    }
  }
}

// A negative or zero diagonal entry: M = diag(A) is not SPD (or singular), neither is A; refused before
// iterating, on the device and on the host backend, in every format the device scan reads or not.
TEST(Pcg, ReportsNotSpdOnNonPositiveDiagonal) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  for (const double diagonal : {-1.0, 0.0}) {
    HostCsrMatrix matrix = poisson2d(5);
    for (std::int32_t k = matrix.row_offsets[7]; k < matrix.row_offsets[8]; ++k) {
      if (matrix.col_indices[k] == 7) matrix.values[k] = diagonal;
    }
    for (const Format format : {Format::Csr, Format::Sell}) {
      for (const Location where : {Location::Device, Location::Host}) {
        SCOPED_TRACE("a_77 = " + std::to_string(diagonal) + ", " + to_string(format) +
                     (where == Location::Host ? ", host backend" : ", device"));
        System system(matrix, format);
        Blas blas(test::context(), where, where == Location::Host ? Precision::Double : widest);
        const SolveResult result = pcg_jacobi(blas, system.A, system.b, system.x);
        EXPECT_EQ(result.status, SolveStatus::NotSpd);
        EXPECT_EQ(result.iterations, 0);
        EXPECT_NE(result.message.find(diagonal < 0 ? "A(7,7) = -1" : "A(7,7) = 0"), std::string::npos)
            << result.message;
      }
    }
  }
}

// Blocks [[1, 2], [2, 1]] (eigenvalues 3 and -1): a positive diagonal, yet indefinite. With two
// distinct eigenvalues the Krylov space has dimension 2, and by Sylvester's law of inertia one of the
// two pivots p'Ap is negative: NotSpd by iteration 2.
TEST(Pcg, ReportsNotSpdOnIndefiniteMatrixWithPositiveDiagonal) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  std::vector<std::tuple<std::int32_t, std::int32_t, double>> entries;
  for (std::int32_t i = 0; i < 40; i += 2) {
    entries.insert(entries.end(), {{i, i, 1.0}, {i, i + 1, 2.0}, {i + 1, i, 2.0}, {i + 1, i + 1, 1.0}});
  }
  System system(test::from_entries(40, entries), Format::Csr);
  Blas blas(test::context(), Location::Device, widest);
  const SolveResult result = pcg_jacobi(blas, system.A, system.b, system.x);
  EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
  EXPECT_LE(result.iterations, 2);
  EXPECT_NE(result.message.find("p'Ap"), std::string::npos) << result.message;
}

}  // namespace
}  // namespace clkr
