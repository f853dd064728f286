// The path of a device without fp64, the reason quasi-double exists: double asked for on the device is a
// clear clkr::Error naming fp64 (at the Blas, the Vector and the solver), while quasi-double CG and
// mixed precision (quasi-double outside, single inside) converge to their tolerances. Each test makes
// its own context with CLKR_HIDE_FP64=1 set while it is created, so the path runs in every suite run on
// any device, not only in CI's no-fp64 pass.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/iterative_refinement.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// A context on the default device with fp64 hidden; the environment is restored afterwards, so the
// other tests of this process see the device as it is.
std::shared_ptr<Context> context_without_fp64() {
  const char* before = std::getenv("CLKR_HIDE_FP64");
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  setenv("CLKR_HIDE_FP64", "1", 1);
  std::shared_ptr<Context> context = Context::create();
  if (saved)
    setenv("CLKR_HIDE_FP64", saved->c_str(), 1);
  else
    unsetenv("CLKR_HIDE_FP64");
  return context;
}

std::string message_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no clkr::Error thrown)";
}

TEST(NoFp64, TheContextReportsNoFp64) {
  const auto context = context_without_fp64();
  EXPECT_FALSE(context->info().fp64);
  EXPECT_NE(context->info().summary().find("no fp64"), std::string::npos) << context->info().summary();
}

TEST(NoFp64, DoubleOnTheDeviceIsAClearErrorNamingFp64) {
  const auto context = context_without_fp64();
  const std::string blas = message_of([&] { Blas b(context, Location::Device, Precision::Double); });
  EXPECT_NE(blas.find("double precision on the device needs fp64"), std::string::npos) << blas;
  EXPECT_NE(blas.find("QuasiDouble"), std::string::npos) << blas;  // and says what to use instead

  Vector v(context, std::vector<double>{1.0, 2.0, 3.0}, "v");
  const std::string vector = message_of([&] { v.device(Precision::Double, Access::Read); });
  EXPECT_NE(vector.find("fp64"), std::string::npos) << vector;
  EXPECT_NE(vector.find("'v'"), std::string::npos) << vector;  // names the vector

  // The host reference backend computes in double on any device.
  EXPECT_NO_THROW(Blas(context, Location::Host, Precision::Double));
}

// Solves poisson2d(32) with b = A x_true on the fp64-less context and checks it as the other solver
// tests do (true residual recomputed in long double, forward error bounded by the condition number).
void expect_poisson_solved(const std::shared_ptr<Context>& context,
                           const std::function<SolveResult(Matrix&, Vector&, Vector&)>& solve, double tol) {
  const HostCsrMatrix host = poisson2d(32);
  Matrix A(context, host, Format::Csr);
  const std::vector<double> x_true = test::random_vector(host.rows, 7);
  const std::vector<double> b_host = test::multiply(host, x_true);
  Vector b(context, b_host, "b");
  Vector x(context, host.rows, "x");
  const SolveResult result = solve(A, b, x);
  ASSERT_TRUE(result.converged()) << to_string(result.status) << ": " << result.message;
  const std::vector<double> x_host = x.to_host();
  const double residual = test::relative_residual(host, b_host, x_host);
  EXPECT_LE(residual, 10 * tol);
  EXPECT_NEAR(result.true_relative_residual, residual, 1e-6 * residual + 1e-300);
  EXPECT_LE(test::relative_error(x_host, x_true), test::poisson2d_condition(32) * (residual + 1e-15));
}

TEST(NoFp64, QuasiDoubleCgConvergesToItsTolerance) {
  const auto context = context_without_fp64();
  Blas blas(context, Location::Device, Precision::QuasiDouble);
  SolveOptions options;
  options.relative_tolerance = 1e-11;  // beyond single's reach (~1e-7), within quasi-double's
  expect_poisson_solved(
      context, [&](Matrix& A, Vector& b, Vector& x) { return cg(blas, A, b, x, options); }, 1e-11);
}

TEST(NoFp64, MixedPrecisionWithQuasiDoubleOutsideConverges) {
  const auto context = context_without_fp64();
  Blas outer(context, Location::Device, Precision::QuasiDouble);
  Blas inner(context, Location::Device, Precision::Single);
  for (const RefinementScheme scheme : {RefinementScheme::Restarted, RefinementScheme::ReliableUpdate}) {
    SCOPED_TRACE(static_cast<int>(scheme));
    SolveOptions options;
    options.refinement = scheme;
    options.relative_tolerance = 1e-10;
    expect_poisson_solved(
        context,
        [&](Matrix& A, Vector& b, Vector& x) {
          const SolveResult r = iterative_refinement(outer, inner, A, b, x, options);
          EXPECT_GT(r.inner_iterations, 0);
          return r;
        },
        1e-10);
  }
}

TEST(NoFp64, TheSolveEntryPointRefusesDoubleAndSolvesInQuasiDouble) {
  const auto context = context_without_fp64();
  const HostCsrMatrix host = poisson2d(8);
  Matrix A(context, host, Format::Csr);
  Vector b(context, std::vector<double>(host.rows, 1.0), "b");
  Vector x(context, host.rows, "x");
  const std::string error = message_of([&] {
    Blas blas(context, Location::Device, Precision::Double);
    solve(SolverKind::Cg, blas, A, b, x);
  });
  EXPECT_NE(error.find("fp64"), std::string::npos) << error;
  Blas blas(context, Location::Device, Precision::QuasiDouble);
  SolveOptions options;
  options.relative_tolerance = 1e-12;
  const SolveResult result = solve(SolverKind::Cg, blas, A, b, x, options);
  EXPECT_TRUE(result.converged()) << result.message;
  EXPECT_LE(result.true_relative_residual, 1e-11);
}

}  // namespace
}  // namespace clkr
