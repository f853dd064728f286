// What every solver shares: names, argument checks before any work, the zero right-hand side, NaN/Inf
// refusal, the initial guess, history and progress reporting, and dispatch by kind.
#include "clkr/solver/solve.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

const SolverKind all_kinds[] = {SolverKind::Cg,     SolverKind::Pcg,      SolverKind::Gmres,
                                SolverKind::Fgmres, SolverKind::BiCgStab, SolverKind::Ir};

// The message of the clkr::Error `call` throws (fails the test if it throws nothing).
template <typename F>
std::string error_message(F&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no clkr::Error thrown";
  return "";
}

TEST(SolverNames, RoundTripAndRefuseUnknown) {
  for (SolverKind kind : all_kinds) EXPECT_EQ(parse_solver(to_string(kind)), kind);
  EXPECT_EQ(to_string(SolverKind::BiCgStab), "bicgstab");
  EXPECT_EQ(parse_solver("GMRES"), SolverKind::Gmres);
  const std::string message = error_message([] { parse_solver("minres"); });
  EXPECT_NE(message.find("minres"), std::string::npos) << message;
  EXPECT_NE(message.find("cg, pcg, gmres, fgmres, bicgstab, ir"), std::string::npos) << message;
  EXPECT_EQ(to_string(SolveStatus::NotSpd), "not-spd");
  EXPECT_EQ(to_string(SolveStatus::MaxIterations), "max-iterations");
}

// In double, or quasi-double on a device without fp64: what is checked here holds in either.
class EverySolver : public ::testing::TestWithParam<SolverKind> {};

// b = 0: x = 0 at once, whatever x held, even NaN (it is not an initial guess).
TEST_P(EverySolver, ZeroRightHandSideReturnsZeroAtOnce) {
  System system(poisson2d(6), Format::Csr);
  system.b.assign(std::vector<double>(36, 0.0));
  system.x.assign(std::vector<double>(36, std::nan("")));
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  SolveOptions options;
  options.record_history = true;
  const SolveResult result = solve(GetParam(), blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::Converged);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_EQ(result.true_relative_residual, 0.0);
  EXPECT_EQ(system.x.to_host(), std::vector<double>(36, 0.0));
  ASSERT_EQ(result.history.size(), 1u);
  EXPECT_EQ(result.history[0].residual, 0.0);
}

// NaN or Inf in b is refused before anything is touched: x keeps its values.
TEST_P(EverySolver, RefusesNonFiniteRightHandSide) {
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    System system(poisson2d(6), Format::Csr);
    std::vector<double> b = system.b.to_host();
    b[17] = bad;
    system.b.assign(b);
    const std::vector<double> x_before = test::random_vector(36, 3);
    system.x.assign(x_before);
    const std::string message = error_message([&] { solve(GetParam(), blas, system.A, system.b, system.x); });
    EXPECT_NE(message.find("b[17]"), std::string::npos) << message;
    EXPECT_EQ(system.x.to_host(), x_before);
  }
}

TEST_P(EverySolver, UsesTheInitialGuess) {
  System system(poisson2d(8), Format::Csr);
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  SolveOptions options;
  options.use_initial_guess = true;
  // The exact solution as the guess: nothing left to do.
  system.x.assign(system.x_true);
  SolveResult result = solve(GetParam(), blas, system.A, system.b, system.x, options);
  EXPECT_TRUE(result.converged()) << result.message;
  EXPECT_EQ(result.iterations, 0);
  // A NaN guess is refused.
  std::vector<double> guess = system.x_true;
  guess[5] = std::nan("");
  system.x.assign(guess);
  const std::string message = error_message([&] { solve(GetParam(), blas, system.A, system.b, system.x, options); });
  EXPECT_NE(message.find("x (the initial guess)[5]"), std::string::npos) << message;
}

TEST_P(EverySolver, RecordsHistoryAndCallsProgress) {
  System system(poisson2d(12), Format::Csr);
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  std::vector<IterationRecord> seen;
  SolveOptions options;
  options.relative_tolerance = 1e-9;
  options.record_history = true;
  options.progress = [&](const IterationRecord& record) { seen.push_back(record); };
  const SolveResult result = solve(GetParam(), blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  ASSERT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations) + 1);
  ASSERT_EQ(seen.size(), result.history.size());
  for (std::size_t k = 0; k < seen.size(); ++k) {
    EXPECT_EQ(result.history[k].iteration, static_cast<int>(k));
    EXPECT_EQ(seen[k].iteration, result.history[k].iteration);
    EXPECT_EQ(seen[k].residual, result.history[k].residual);
    if (k > 0) {
      EXPECT_GE(result.history[k].seconds, result.history[k - 1].seconds);
    }
  }
  // x starts at 0, so the first residual is b itself.
  EXPECT_NEAR(result.history[0].residual, 1.0, 1e-14);
  EXPECT_LE(result.history.back().residual, 1e-9);
  EXPECT_LE(result.history.back().seconds, result.seconds);
  // Without record_history the history stays empty (progress still runs).
  options.record_history = false;
  seen.clear();
  const SolveResult quiet = solve(GetParam(), blas, system.A, system.b, system.x, options);
  EXPECT_TRUE(quiet.history.empty());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(quiet.iterations) + 1);
}

TEST_P(EverySolver, RefusesBadOperandsAndOptions) {
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  System system(poisson2d(4), Format::Csr);
  Vector short_vector(test::context(), 15, "short");
  const SolverKind kind = GetParam();
  EXPECT_NE(error_message([&] { solve(kind, blas, system.A, short_vector, system.x); }).find("b has 15 elements"),
            std::string::npos);
  EXPECT_NE(error_message([&] { solve(kind, blas, system.A, system.b, short_vector); }).find("x has 15 elements"),
            std::string::npos);
  EXPECT_NE(error_message([&] { solve(kind, blas, system.A, system.b, system.b); }).find("different vectors"),
            std::string::npos);

  HostCsrMatrix rectangular;
  rectangular.rows = 2;
  rectangular.cols = 3;
  rectangular.row_offsets = {0, 1, 2};
  rectangular.col_indices = {0, 2};
  rectangular.values = {1.0, 2.0};
  Matrix wide(test::context(), rectangular, Format::Csr);
  Vector b2(test::context(), std::vector<double>{1.0, 1.0}), x3(test::context(), 3);
  EXPECT_NE(error_message([&] { solve(kind, blas, wide, b2, x3); }).find("2 x 3, not square"), std::string::npos);

  SolveOptions options;
  options.relative_tolerance = -1;
  EXPECT_NE(error_message([&] { solve(kind, blas, system.A, system.b, system.x, options); }).find("relative_tolerance"),
            std::string::npos);
  options = {};
  options.absolute_tolerance = std::nan("");
  EXPECT_NE(error_message([&] { solve(kind, blas, system.A, system.b, system.x, options); }).find("absolute_tolerance"),
            std::string::npos);
  options = {};
  options.max_iterations = -1;
  EXPECT_NE(error_message([&] { solve(kind, blas, system.A, system.b, system.x, options); }).find("max_iterations"),
            std::string::npos);
}

// n = 0 (b = 0: nothing to do) and n = 1 (one step solves a x = b, exactly in double: x = 3/4).
TEST_P(EverySolver, TinySystems) {
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  for (std::int32_t n : {0, 1}) {
    HostCsrMatrix host;
    host.rows = host.cols = n;
    host.row_offsets.assign(n + 1, n);
    host.row_offsets[0] = 0;
    host.col_indices.assign(n, 0);
    host.values.assign(n, 4.0);
    Matrix A(test::context(), host, Format::Csr);
    Vector b(test::context(), std::vector<double>(n, 3.0)), x(test::context(), n);
    const SolveResult result = solve(GetParam(), blas, A, b, x);
    EXPECT_TRUE(result.converged()) << result.message;
    EXPECT_EQ(result.iterations, n);
    EXPECT_EQ(x.to_host(), std::vector<double>(n, 0.75));
    EXPECT_EQ(result.true_relative_residual, 0.0);
  }
}

// No iterations allowed: the initial residual is reported, nothing else happens.
TEST_P(EverySolver, ZeroMaxIterations) {
  System system(poisson2d(6), Format::Csr);
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  SolveOptions options;
  options.max_iterations = 0;
  const SolveResult result = solve(GetParam(), blas, system.A, system.b, system.x, options);
  EXPECT_EQ(result.status, SolveStatus::MaxIterations) << result.message;
  EXPECT_EQ(result.iterations, 0);
  EXPECT_NEAR(result.true_relative_residual, 1.0, 1e-15);
  EXPECT_EQ(system.x.to_host(), std::vector<double>(36, 0.0));
}

INSTANTIATE_TEST_SUITE_P(Kinds, EverySolver, ::testing::ValuesIn(all_kinds), test::param_name<SolverKind>);

TEST(Solve, RefusesBadSolverSpecificOptions) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  Blas blas(test::context(), Location::Device, Precision::Double);
  System system(poisson2d(4), Format::Csr);
  SolveOptions options;
  options.restart = 0;
  EXPECT_NE(error_message([&] { gmres(blas, system.A, system.b, system.x, options); }).find("restart = 0"),
            std::string::npos);
  options = {};
  options.inner_relative_tolerance = 1.5;
  EXPECT_NE(error_message([&] {
              solve(SolverKind::Ir, blas, system.A, system.b, system.x, options);
            }).find("inner_relative_tolerance"),
            std::string::npos);
  options = {};
  options.inner_solver = SolverKind::Ir;
  EXPECT_NE(
      error_message([&] { solve(SolverKind::Ir, blas, system.A, system.b, system.x, options); }).find("inner solver"),
      std::string::npos);
}

// The true residual is computed from host copies in long double, whatever the precision of x.
TEST(Solve, TrueRelativeResidual) {
  const HostCsrMatrix host = poisson2d(5);
  Matrix A(test::context(), host, Format::Csr);
  const std::vector<double> x_values = test::random_vector(25, 11);
  const std::vector<double> b_values = test::random_vector(25, 12);
  Vector x(test::context(), x_values), b(test::context(), b_values);
  EXPECT_NEAR(true_relative_residual(A, b, x), test::relative_residual(host, b_values, x_values), 1e-15);
  Vector zero_b(test::context(), 25);
  EXPECT_NEAR(true_relative_residual(A, zero_b, x), test::norm(test::multiply(host, x_values)), 1e-13);
  Vector short_vector(test::context(), 3);
  EXPECT_THROW(true_relative_residual(A, short_vector, x), Error);
}

}  // namespace
}  // namespace clkr
