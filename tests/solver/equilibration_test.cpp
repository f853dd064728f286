// Single and quasi-double solves of systems whose values leave float's range: scaled into it (D A D,
// b by a power of two) and reported, or refused up front with the reason; never a NaN in the result.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"
#include "clkr/solver/solve_many.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// S P S for the 3D Poisson matrix P and S = diag(10^u_i), u_i uniform in [0, 7]: an SPD matrix with
// entries up to ~6e14 and a diagonal spanning 14 orders of magnitude, like a stiffness matrix mixing
// soft and stiff materials (bcsstk25 reaches 5.8e14). Its Jacobi-scaled form is P itself, well
// conditioned, so every precision can reach its own accuracy once the range is dealt with.
HostCsrMatrix stiff_poisson(int n, double exponent_span = 7, double factor = 1) {
  HostCsrMatrix A = poisson3d(n);
  std::mt19937_64 engine(11);
  std::uniform_real_distribution<double> uniform(0.0, exponent_span);
  std::vector<double> s(A.rows);
  for (double& v : s) v = std::pow(10.0, uniform(engine));
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      A.values[k] *= s[i] * s[A.col_indices[k]] * factor;
  return A;
}

using test::relative_error;

// ||W (x - y)|| / ||W y|| with W = diag(|a_ii|)^1/2.
double weighted_error(const HostCsrMatrix& A, const std::vector<double>& x, const std::vector<double>& y) {
  long double error = 0, norm = 0;
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) {
        const long double w = std::sqrt(std::abs(A.values[k]));
        error += w * w * (x[i] - y[i]) * (x[i] - y[i]);
        norm += w * w * y[i] * y[i];
      }
  return static_cast<double>(std::sqrt(error / norm));
}

struct EquilibrationCase {
  Precision precision;
  double tolerance;
};

class StiffSystem : public ::testing::TestWithParam<EquilibrationCase> {};

// Without the scaling, single CG stops in its first step with p'Ap = inf - inf (checked below).
TEST_P(StiffSystem, CgIsScaledIntoRangeAndReachesTheTolerance) {
  const auto [precision, tolerance] = GetParam();
  test::System system(stiff_poisson(8), Format::Csr);
  Blas blas(test::context(), Location::Device, precision);
  SolveOptions options;
  options.relative_tolerance = tolerance;
  const SolveResult r = solve(SolverKind::Cg, blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_NE(r.scaling.find("D A D"), std::string::npos) << r.scaling;
  EXPECT_NE(r.scaling.find(to_string(precision)), std::string::npos) << r.scaling;
  EXPECT_TRUE(std::isfinite(r.true_relative_residual));
  const std::vector<double> x = system.x.to_host();
  EXPECT_NEAR(r.true_relative_residual, test::relative_residual(system.host, system.b.to_host(), x),
              1e-6 * r.true_relative_residual);
  // The scaled system (D A D) y = D b, x = D y, is well conditioned (cond(P) ~ 30), so y is accurate
  // to ~cond(P) * tolerance: x is, in the energy-like weights D^-1 ~ diag(a_ii)^1/2 (within a factor
  // of sqrt(2): D holds powers of two). In the plain 2-norm x cannot be: A's condition number is
  // ~1e14 * cond(P), and the small components of x are lost next to the large ones in any precision.
  EXPECT_LE(weighted_error(system.host, x, system.x_true), 100 * tolerance);
}

// A static array, so that the cases' padding bytes are zero: the tests' names in ctest carry the
// parameter's bytes, padding included (temporaries would leave whatever was on the stack there).
const EquilibrationCase kStiffCases[] = {{Precision::Single, 1e-5}, {Precision::QuasiDouble, 1e-11}};

INSTANTIATE_TEST_SUITE_P(Precisions, StiffSystem, ::testing::ValuesIn(kStiffCases));

TEST(Equilibration, DoubleNeedsNoneAndAnOrdinarySystemIsSolvedExactlyAsBefore) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  test::System stiff(stiff_poisson(6), Format::Csr);
  Blas dbl(test::context(), Location::Device, Precision::Double);
  EXPECT_EQ(solve(SolverKind::Cg, dbl, stiff.A, stiff.b, stiff.x).scaling, "");
  // Poisson in single: in range, nothing scaled, and the same iterates as the bare cg() entry point.
  test::System plain(poisson3d(8), Format::Csr);
  Blas single(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-5;
  const SolveResult via_solve = solve(SolverKind::Cg, single, plain.A, plain.b, plain.x, options);
  const std::vector<double> x_solve = plain.x.to_host();
  const SolveResult direct = cg(single, plain.A, plain.b, plain.x, options);
  EXPECT_EQ(via_solve.scaling, "");
  EXPECT_EQ(via_solve.iterations, direct.iterations);
  EXPECT_EQ(x_solve, plain.x.to_host());
}

TEST(Equilibration, WithoutItSingleCgBreaksDownOnTheStiffSystem) {
  // What the scaling prevents, through the bare cg() entry point that does not scale.
  test::System system(stiff_poisson(8), Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Single);
  const SolveResult r = cg(blas, system.A, system.b, system.x);
  EXPECT_EQ(r.status, SolveStatus::NonFinite) << r.message;
  EXPECT_EQ(r.scaling, "");
}

// Several right-hand sides: the batched CG does not scale, so such a system takes the column loop,
// whose solves do.
TEST(Equilibration, SolveManyScalesTheStiffSystemToo) {
  const HostCsrMatrix host = stiff_poisson(6);
  Matrix A(test::context(), host, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Single);
  std::vector<Vector> B, X;
  for (unsigned j = 0; j < 3; ++j) {
    B.emplace_back(test::context(), test::multiply(host, test::random_vector(host.rows, 20 + j)), "b");
    X.emplace_back(test::context(), host.rows, "x");
  }
  SolveOptions options;
  options.relative_tolerance = 1e-5;
  for (const SolveResult& r : solve_many(SolverKind::Cg, blas, A, B, X, options)) {
    EXPECT_TRUE(r.converged()) << r.message;
    EXPECT_NE(r.scaling.find("D A D"), std::string::npos) << r.scaling;
  }
}

TEST(Equilibration, ATinyRightHandSideIsScaledByAPowerOfTwo) {
  HostCsrMatrix A = poisson3d(6);
  test::System system(A, Format::Csr);
  std::vector<double> b = system.b.to_host();
  for (double& v : b) v *= 1e-30;  // r'r = 1e-60 would underflow float
  system.b.assign(b);
  Blas blas(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-5;
  const SolveResult r = solve(SolverKind::Cg, blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_NE(r.scaling.find("b scaled by"), std::string::npos) << r.scaling;
  EXPECT_EQ(r.scaling.find("D A D"), std::string::npos) << r.scaling;
  std::vector<double> x = system.x.to_host();
  for (double& v : x) v *= 1e30;
  EXPECT_LE(relative_error(x, system.x_true), 1e-3);
}

TEST(Equilibration, ValuesPastFloatAreScaledWithoutAPreconditionerAndRefusedWithOne) {
  // Poisson times 1e300: no float holds a single entry.
  HostCsrMatrix A = poisson3d(5);
  for (double& v : A.values) v *= 1e300;
  test::System system(A, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Single);
  SolveOptions options;
  options.relative_tolerance = 1e-5;
  const SolveResult r = solve(SolverKind::Cg, blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_LE(relative_error(system.x.to_host(), system.x_true), 1e-3);
  // A Jacobi preconditioner built for A itself holds 1/6e300: the matrix cannot be scaled under it.
  PrecondOptions jacobi;
  jacobi.kind = PrecondKind::Jacobi;
  auto M = make_preconditioner(blas, system.A, jacobi);
  try {
    solve(SolverKind::Cg, blas, system.A, *M, system.b, system.x, options);
    FAIL() << "no clkr::Error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("do not fit in single precision"), std::string::npos) << message;
    EXPECT_NE(message.find("6e+300"), std::string::npos) << message;
  }
}

TEST(Equilibration, ASpreadNoDiagonalScalingCanCloseIsRefused) {
  // Entries from 1e-30 to 1e30 within the same rows: D A D cannot bring both inside float's range.
  HostCsrMatrix A = poisson3d(4);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] != i) A.values[k] = (A.col_indices[k] > i ? 1e-30 : -1e30);
  Matrix matrix(test::context(), A, Format::Csr);
  Vector b(test::context(), std::vector<double>(A.rows, 1.0)), x(test::context(), A.rows);
  Blas blas(test::context(), Location::Device, Precision::QuasiDouble);
  try {
    solve(SolverKind::Gmres, blas, matrix, b, x);
    FAIL() << "no clkr::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("solve in double"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
