// GMRES(m) specifics: the restart length, and stagnation of a restarted cycle on a singular system
// (the shared non-symmetric tests are in nonsymmetric_test.cpp).
#include "clkr/solver/gmres.hpp"

#include <gtest/gtest.h>

#include "../precision_support.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

// A short restart needs more iterations but gets there; without restarts (m >= n) GMRES finishes
// within n steps (the Krylov space is then the whole space).
TEST(Gmres, RestartLengthTradesIterationsForMemory) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  System system(test::convection_diffusion(10, 1.0), Format::Csr);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.restart = 100;
  const SolveResult full = gmres(blas, system.A, system.b, system.x, options);
  test::expect_solved(full, system, widest, 1e-10, 2 * test::condition_estimate(system.host));
  EXPECT_LE(full.iterations, 100);
  options.restart = 5;
  const SolveResult restarted = gmres(blas, system.A, system.b, system.x, options);
  test::expect_solved(restarted, system, widest, 1e-10, 2 * test::condition_estimate(system.host));
  EXPECT_GT(restarted.iterations, full.iterations);
}

// A restarted cycle that cannot reduce the residual (here: the floor |b_i| of a zero row, reached once
// the rest has converged) would repeat itself: Stagnated, well before max_iterations.
TEST(Gmres, ReportsStagnationOfRestartCycles) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  const std::int32_t zero_row = 37;
  const HostCsrMatrix matrix = test::without_row(test::convection_diffusion(10, 1.0), zero_row);
  System system(matrix, Format::Csr);
  const std::vector<double> b = test::random_vector(matrix.rows, 5);
  system.b.assign(b);
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.max_iterations = 5000;
  const SolveResult result = gmres(blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::Stagnated) << result.message;
  EXPECT_LT(result.iterations, 5000);
  EXPECT_NE(result.message.find("restart cycle"), std::string::npos) << result.message;
}

}  // namespace
}  // namespace clkr
