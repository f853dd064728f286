// solve_many: several right-hand sides on one setup give, column by column, what separate solves give.
#include "clkr/solver/solve_many.hpp"

#include <gtest/gtest.h>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// Each column of solve_many equals the separate solve of that column, to the last bit: the columns
// share the setup and nothing else.
void expect_columns_equal_separate_solves(SolverKind kind, PrecondKind precond, Precision precision) {
  const HostCsrMatrix host = poisson3d(7);
  const auto n = static_cast<std::size_t>(host.rows);
  Matrix A(test::context(), host, Format::Csr);
  Blas blas(test::context(), Location::Device, precision);
  PrecondOptions precond_options;
  precond_options.kind = precond;
  auto M = make_preconditioner(blas, A, precond_options);
  SolveOptions options;
  options.relative_tolerance = precision == Precision::Single ? 1e-5 : 1e-9;
  const int k = 5;
  std::vector<Vector> B, X;
  for (int j = 0; j < k; ++j) {
    B.emplace_back(test::context(), test::random_vector(n, 100 + j), "b");
    X.emplace_back(test::context(), n, "x");
  }
  const std::vector<SolveResult> results = solve_many(kind, blas, A, *M, B, X, options);
  ASSERT_EQ(results.size(), static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j) {
    SCOPED_TRACE("column " + std::to_string(j));
    Vector b(test::context(), test::random_vector(n, 100 + j), "b"), x(test::context(), n, "x");
    const SolveResult alone = solve(kind, blas, A, *M, b, x, options);
    EXPECT_TRUE(results[j].converged()) << results[j].message;
    EXPECT_EQ(results[j].iterations, alone.iterations);
    EXPECT_EQ(X[j].to_host(), x.to_host());
    EXPECT_LE(results[j].true_relative_residual, 10 * options.relative_tolerance);
  }
}

TEST(SolveMany, CgWithAmgColumnsEqualSeparateSolves) {
  expect_columns_equal_separate_solves(SolverKind::Cg, PrecondKind::Amg,
                                       test::widest_device_precision(*test::context()));
}

TEST(SolveMany, GmresWithJacobiInSingleColumnsEqualSeparateSolves) {
  expect_columns_equal_separate_solves(SolverKind::Gmres, PrecondKind::Jacobi, Precision::Single);
}

TEST(SolveMany, UnpreconditionedBiCgStabInQuasiDouble) {
  const HostCsrMatrix host = poisson2d(9);
  const auto n = static_cast<std::size_t>(host.rows);
  Matrix A(test::context(), host, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::QuasiDouble);
  std::vector<Vector> B, X;
  for (int j = 0; j < 3; ++j) {
    B.emplace_back(test::context(), test::random_vector(n, 7 + j), "b");
    X.emplace_back(test::context(), n, "x");
  }
  const auto results = solve_many(SolverKind::BiCgStab, blas, A, B, X);
  ASSERT_EQ(results.size(), 3u);
  for (int j = 0; j < 3; ++j) {
    EXPECT_TRUE(results[j].converged()) << results[j].message;
    EXPECT_LE(test::relative_residual(host, B[j].to_host(), X[j].to_host()), 1e-8);
  }
}

TEST(SolveMany, NoColumnsIsNoWorkAndMismatchedCountsAreRefused) {
  Matrix A(test::context(), poisson2d(4), Format::Csr);
  Blas blas(test::context(), Location::Device, test::widest_device_precision(*test::context()));
  std::vector<Vector> none, none_x;
  EXPECT_TRUE(solve_many(SolverKind::Cg, blas, A, none, none_x).empty());
  std::vector<Vector> B, X;
  B.emplace_back(test::context(), 16, "b");
  try {
    solve_many(SolverKind::Cg, blas, A, B, X);
    FAIL() << "no clkr::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("B has 1 columns but X has 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
