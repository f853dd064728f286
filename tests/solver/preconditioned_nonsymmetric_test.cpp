// Right-preconditioned GMRES and BiCGStab and flexible GMRES with Jacobi, Chebyshev and a variable
// preconditioner written here; every solver's refusals of a preconditioner that does not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "clkr/precond/chebyshev.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

// convection_diffusion(n, 1) A times S = diag(10^u), u uniform in [-1, 1] (columns scaled): A S is badly
// scaled, but with D = diag(A S) = 4 S right-preconditioning gives (A S) D^-1 = A / 4, on which GMRES
// and BiCGStab take exactly the iterations they take on A (both are invariant under A -> c A).
HostCsrMatrix column_scaled_convection_diffusion(int n) {
  HostCsrMatrix A = test::convection_diffusion(n, 1.0);
  std::vector<double> s = test::random_vector(A.rows, 31);
  for (double& e : s) e = std::pow(10.0, e);
  for (std::size_t k = 0; k < A.values.size(); ++k) A.values[k] *= s[A.col_indices[k]];
  return A;
}

using Solver = SolveResult (*)(Blas&, Matrix&, Preconditioner&, Vector&, Vector&, const SolveOptions&);
using PlainSolver = SolveResult (*)(Blas&, Matrix&, Vector&, Vector&, const SolveOptions&);

struct RightPreconditioned {
  const char* name;
  Solver with_m;
  PlainSolver without_m;
};

const RightPreconditioned kRight[] = {
    {"gmres",
     [](Blas& b, Matrix& A, Preconditioner& M, Vector& r, Vector& x, const SolveOptions& o) {
       return gmres(b, A, M, r, x, o);
     },
     [](Blas& b, Matrix& A, Vector& r, Vector& x, const SolveOptions& o) { return gmres(b, A, r, x, o); }},
    {"bicgstab",
     [](Blas& b, Matrix& A, Preconditioner& M, Vector& r, Vector& x, const SolveOptions& o) {
       return bicgstab(b, A, M, r, x, o);
     },
     [](Blas& b, Matrix& A, Vector& r, Vector& x, const SolveOptions& o) { return bicgstab(b, A, r, x, o); }},
};

// Right preconditioning minimises and reports b - A x itself: the residual the solver tracked at the
// end (recomputed explicitly in its precision when it confirmed convergence) is the true one, up to the
// rounding of b - A x in that precision (converged_residual_bound), not scaled by M^-1 as a left-
// preconditioned residual would be (here by factors up to 10).
void expect_true_residual_reported(const SolveResult& result, System& system, Precision p) {
  const std::vector<double> x = system.x.to_host(), b = system.b.to_host();
  const double exact = test::relative_residual(system.host, b, x);
  const double rounding = test::converged_residual_bound(system.host, b, x, p, 0);
  EXPECT_LE(std::fabs(result.recursive_relative_residual - exact), rounding + 1e-6 * exact)
      << "reported " << result.recursive_relative_residual << ", b - A x gives " << exact;
}

class RightPreconditionedSolvers : public ::testing::TestWithParam<Precision> {
 protected:
  void SetUp() override {
    if (GetParam() == Precision::Double && !test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  }
};

TEST_P(RightPreconditionedSolvers, JacobiUndoesAColumnScaling) {
  const Precision p = GetParam();
  System scaled(column_scaled_convection_diffusion(16), Format::Csr);
  System plain(test::convection_diffusion(16, 1.0), Format::Csr);
  const double kappa = 2 * test::condition_estimate(scaled.host);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  Jacobi M(blas, scaled.A);
  for (const RightPreconditioned& solver : kRight) {
    SCOPED_TRACE(solver.name);
    const SolveResult result = solver.with_m(blas, scaled.A, M, scaled.b, scaled.x, options);
    test::expect_solved(result, scaled, p, options.relative_tolerance, kappa);
    expect_true_residual_reported(result, scaled, p);
    // The same iterations as unpreconditioned on A itself with the same b (A y = b, y = S x_true).
    if (p == Precision::Double) {
      const std::vector<double> b = scaled.b.to_host();
      plain.b.assign(b);
      const SolveResult reference = solver.without_m(blas, plain.A, plain.b, plain.x, options);
      ASSERT_TRUE(reference.converged()) << reference.message;
      EXPECT_LE(std::abs(result.iterations - reference.iterations), 1)
          << "on A S with Jacobi " << result.iterations << ", on A " << reference.iterations;
    }
  }
}

TEST_P(RightPreconditionedSolvers, ChebyshevConverges) {
  const Precision p = GetParam();
  System system(test::convection_diffusion(16, 1.0), Format::Csr);
  const double kappa = 2 * test::condition_estimate(system.host);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  ChebyshevOptions degree;
  degree.degree = 3;
  Chebyshev M(blas, system.A, degree);
  for (const RightPreconditioned& solver : kRight) {
    SCOPED_TRACE(solver.name);
    const SolveResult result = solver.with_m(blas, system.A, M, system.b, system.x, options);
    test::expect_solved(result, system, p, options.relative_tolerance, kappa);
    expect_true_residual_reported(result, system, p);
  }
}

// On an SPD matrix, where the Lanczos interval is meaningful, a degree-4 polynomial cuts the
// iterations of both solvers: the preconditioned spectrum 1 - R(lambda) lies in [1 - 1/T_4(sigma),
// 1 + 1/T_4(sigma)], kappa ~ 8 against ~ 116 for poisson2d(16).
TEST_P(RightPreconditionedSolvers, ChebyshevReducesIterationsOnAnSpdMatrix) {
  const Precision p = GetParam();
  System system(poisson2d(16), Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  Chebyshev M(blas, system.A);
  for (const RightPreconditioned& solver : kRight) {
    SCOPED_TRACE(solver.name);
    const SolveResult result = solver.with_m(blas, system.A, M, system.b, system.x, options);
    test::expect_solved(result, system, p, options.relative_tolerance, test::poisson2d_condition(16));
    const SolveResult plain = solver.without_m(blas, system.A, system.b, system.x, options);
    EXPECT_LT(result.iterations, plain.iterations);
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, RightPreconditionedSolvers,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         test::param_name<Precision>);

// FGMRES with a fixed M is right-preconditioned GMRES (same Krylov space, same minimisation); both
// accept any M that solve() passes them.
TEST(Fgmres, WithAFixedPreconditionerMatchesGmres) {
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  System system(column_scaled_convection_diffusion(16), Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Double);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.restart = 20;
  Jacobi M(blas, system.A);
  const SolveResult flexible = fgmres(blas, system.A, M, system.b, system.x, options);
  test::expect_solved(flexible, system, Precision::Double, 1e-10, 2 * test::condition_estimate(system.host));
  const SolveResult right = solve(SolverKind::Gmres, blas, system.A, M, system.b, system.x, options);
  ASSERT_TRUE(right.converged()) << right.message;
  EXPECT_LE(std::abs(flexible.iterations - right.iterations), 1);
  const SolveResult dispatched = solve(SolverKind::Fgmres, blas, system.A, M, system.b, system.x, options);
  EXPECT_EQ(dispatched.iterations, flexible.iterations);
}

// A variable preconditioner: z = a few unpreconditioned CG steps on A z = r from z = 0, a nonlinear
// function of r (its step lengths depend on r), so only a flexible method may use it.
class InnerCg : public Preconditioner {
 public:
  InnerCg(const Blas& solver, Matrix& A, int steps)
      : Preconditioner(solver, A, std::nullopt, "inner-cg"),
        A_(A),
        steps_(steps),
        r_(A.context(), A.rows(), "inner.r"),
        p_(A.context(), A.rows(), "inner.p"),
        q_(A.context(), A.rows(), "inner.q") {}

  bool symmetric() const override { return false; }
  bool variable() const override { return true; }
  // A kind other than None: solvers run an Identity's kind unpreconditioned.
  PrecondKind kind() const override { return PrecondKind::Amg; }
  std::string description() const override { return "inner cg (" + std::to_string(steps_) + " steps)"; }

 protected:
  void apply_checked(Vector& r, Vector& z) override {
    Blas& b = blas();
    z.assign(std::vector<double>(z.size(), 0.0));
    b.copy(r, r_);
    b.copy(r, p_);
    double rr = b.dot(r_, r_);
    for (int k = 0; k < steps_ && rr > 0; ++k) {
      b.spmv(1.0, A_, p_, 0.0, q_);
      const double alpha = rr / b.dot(p_, q_);
      b.axpy(alpha, p_, z);
      b.axpy(-alpha, q_, r_);
      const double rr_new = b.dot(r_, r_);
      b.aypx(rr_new / rr, r_, p_);
      rr = rr_new;
    }
  }
  void update_values(Matrix&, PhaseTimes&) override {}

 private:
  Matrix& A_;
  int steps_;
  Vector r_, p_, q_;
};

TEST(Fgmres, ConvergesWithAVariablePreconditionerThatOtherSolversRefuse) {
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  System system(poisson2d(24), Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Double);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  options.restart = 20;
  InnerCg M(blas, system.A, 4);
  const SolveResult result = fgmres(blas, system.A, M, system.b, system.x, options);
  test::expect_solved(result, system, Precision::Double, 1e-10, test::poisson2d_condition(24));
  EXPECT_GE(M.applications(), static_cast<std::uint64_t>(result.iterations));
  const SolveResult plain = gmres(blas, system.A, system.b, system.x, options);
  EXPECT_LT(result.iterations, plain.iterations);
  // Refused up front, x untouched.
  system.x.assign(std::vector<double>(system.host.rows, 0.5));
  EXPECT_THROW(gmres(blas, system.A, M, system.b, system.x, options), Error);
  EXPECT_THROW(bicgstab(blas, system.A, M, system.b, system.x, options), Error);
  EXPECT_THROW(cg(blas, system.A, M, system.b, system.x, options), Error) << "CG took a nonsymmetric M";
  EXPECT_THROW(solve(SolverKind::Gmres, blas, system.A, M, system.b, system.x, options), Error);
  EXPECT_EQ(system.x.to_host(), std::vector<double>(system.host.rows, 0.5));
}

// Every solver refuses a preconditioner on another context, at another location or of another size,
// and solve() refuses Pcg and Ir with a preconditioner, all before touching x.
TEST(PreconditionedSolvers, RefuseAPreconditionerThatDoesNotFit) {
  System system(poisson2d(10), Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Single);
  const std::shared_ptr<Context> other = Context::create();
  Matrix A_other(other, system.host);
  Blas blas_other(other, Location::Device, Precision::Single);
  Jacobi on_other_context(blas_other, A_other);
  Blas host(test::context(), Location::Host, Precision::Single);
  Jacobi on_host(host, system.A);
  Matrix bigger(test::context(), poisson2d(11));
  Jacobi other_size(blas, bigger);
  const std::vector<double> start(system.host.rows, 0.25);
  system.x.assign(start);
  SolveOptions options;
  options.use_initial_guess = true;
  for (Preconditioner* M : std::vector<Preconditioner*>{&on_other_context, &on_host, &other_size}) {
    SCOPED_TRACE(M->description());
    EXPECT_THROW(cg(blas, system.A, *M, system.b, system.x, options), Error);
    EXPECT_THROW(gmres(blas, system.A, *M, system.b, system.x, options), Error);
    EXPECT_THROW(fgmres(blas, system.A, *M, system.b, system.x, options), Error);
    EXPECT_THROW(bicgstab(blas, system.A, *M, system.b, system.x, options), Error);
    for (SolverKind kind :
         {SolverKind::Cg, SolverKind::Gmres, SolverKind::Fgmres, SolverKind::BiCgStab, SolverKind::Ir})
      EXPECT_THROW(solve(kind, blas, system.A, *M, system.b, system.x, options), Error) << to_string(kind);
  }
  Jacobi fits(blas, system.A);
  EXPECT_THROW(solve(SolverKind::Pcg, blas, system.A, fits, system.b, system.x, options), Error);
  EXPECT_EQ(system.x.to_host(), start) << "a refused solve touched x";
  EXPECT_EQ(fits.applications(), 0u);
  // The one that fits is accepted by all of them (iterative refinement applies it inside, in its inner
  // precision, single here as the Blas's).
  for (SolverKind kind :
       {SolverKind::Cg, SolverKind::Gmres, SolverKind::Fgmres, SolverKind::BiCgStab, SolverKind::Ir}) {
    options.relative_tolerance = 1e-5;
    const SolveResult result = solve(kind, blas, system.A, fits, system.b, system.x, options);
    EXPECT_TRUE(result.converged()) << to_string(kind) << ": " << result.message;
  }
}

TEST(PreconditionedSolversAgreement, HostAndDeviceTakeTheSameIterations) {
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  System system(column_scaled_convection_diffusion(12), Format::Csr);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  Blas device(test::context(), Location::Device, Precision::Double);
  Blas host(test::context(), Location::Host, Precision::Double);
  Jacobi on_device(device, system.A), on_host(host, system.A);
  const double kappa = 2 * test::condition_estimate(system.host);
  for (SolverKind kind : {SolverKind::Gmres, SolverKind::Fgmres, SolverKind::BiCgStab}) {
    SCOPED_TRACE(to_string(kind));
    const SolveResult d = solve(kind, device, system.A, on_device, system.b, system.x, options);
    test::expect_solved(d, system, Precision::Double, 1e-10, kappa);
    const SolveResult h = solve(kind, host, system.A, on_host, system.b, system.x, options);
    test::expect_solved(h, system, Precision::Double, 1e-10, kappa);
    EXPECT_LE(std::abs(d.iterations - h.iterations), 2);
  }
}

}  // namespace
}  // namespace clkr
