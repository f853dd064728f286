// CG with a preconditioner (PCG): Jacobi against pcg_jacobi and a long double PCG, Chebyshev, Identity
// taking CG's own paths, preconditioners in another precision, indefinite M, host/device agreement.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/chebyshev.hpp"
#include "clkr/precond/identity.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/pcg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

// Textbook PCG with M = diag(A) in long double from x = 0: the iterations until the recursive residual
// meets ||r|| <= tol ||b||.
int reference_pcg_iterations(const HostCsrMatrix& A, const std::vector<double>& b, double tol) {
  const std::size_t n = b.size();
  std::vector<long double> dinv(n), r(b.begin(), b.end()), z(n), p(n), q(n);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) dinv[i] = 1.0L / A.values[k];
  const auto dot = [](const std::vector<long double>& x, const std::vector<long double>& y) {
    long double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
    return s;
  };
  for (std::size_t i = 0; i < n; ++i) p[i] = z[i] = dinv[i] * r[i];
  const long double target = tol * tol * dot(r, r);
  long double rz = dot(r, z);
  for (int k = 1; k <= 10000; ++k) {
    for (std::int32_t i = 0; i < A.rows; ++i) {
      q[i] = 0;
      for (std::int32_t e = A.row_offsets[i]; e < A.row_offsets[i + 1]; ++e) q[i] += A.values[e] * p[A.col_indices[e]];
    }
    const long double alpha = rz / dot(p, q);
    for (std::size_t i = 0; i < n; ++i) r[i] -= alpha * q[i];
    if (dot(r, r) <= target) return k;
    for (std::size_t i = 0; i < n; ++i) z[i] = dinv[i] * r[i];
    const long double rz_new = dot(r, z);
    for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + rz_new / rz * p[i];
    rz = rz_new;
  }
  return -1;
}

class PreconditionedCg : public ::testing::TestWithParam<Precision> {
 protected:
  void SetUp() override {
    if (GetParam() == Precision::Double && !test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  }
};

TEST_P(PreconditionedCg, JacobiRunsAsPcgJacobi) {
  const Precision p = GetParam();
  const test::ScaledPoisson scaled(20);
  System system(scaled.matrix, Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  Jacobi M(blas, system.A);
  const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, scaled.kappa_bound);
  // Applied every iteration, except on the persistent kernel (a GPU's Auto), which forms z = M^-1 r
  // itself after the start; the iteration counts below show M at work either way.
  EXPECT_GE(M.applications(), result.path == "persistent" ? 1u : static_cast<std::uint64_t>(result.iterations))
      << result.path;
  const SolveResult reference = pcg_jacobi(blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(reference.converged()) << reference.message;
  EXPECT_LE(std::abs(result.iterations - reference.iterations), 1)
      << "cg with Jacobi " << result.iterations << ", pcg_jacobi " << reference.iterations;
  if (p == Precision::Double) {
    const int textbook = reference_pcg_iterations(system.host, system.b.to_host(), options.relative_tolerance);
    EXPECT_LE(std::abs(result.iterations - textbook), 2) << "long double PCG: " << textbook;
  }
}

TEST_P(PreconditionedCg, ChebyshevConvergesInFewerIterationsThanJacobi) {
  const Precision p = GetParam();
  const test::ScaledPoisson scaled(20);
  System system(scaled.matrix, Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  Chebyshev M(blas, system.A);
  const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
  test::expect_solved(result, system, p, options.relative_tolerance, scaled.kappa_bound);
  // A degree-4 polynomial in D^-1 A is a better approximate inverse than D^-1 alone.
  const SolveResult jacobi = pcg_jacobi(blas, system.A, system.b, system.x, options);
  EXPECT_LT(result.iterations, jacobi.iterations);
}

// CG given the Identity runs its unpreconditioned iteration: the same path (fused on a device), so the
// same iterations and the same x, bit for bit.
TEST_P(PreconditionedCg, IdentityTakesCgsOwnPath) {
  const Precision p = GetParam();
  System system(poisson2d(24), Format::Csr);
  for (Location location : {Location::Device, Location::Host}) {
    SCOPED_TRACE(to_string(location));
    Blas blas(test::context(), location, p);
    SolveOptions options;
    options.relative_tolerance = tolerance_for(p);
    Identity M(blas, system.A);
    const SolveResult with_identity = cg(blas, system.A, M, system.b, system.x, options);
    test::expect_solved(with_identity, system, p, options.relative_tolerance, test::poisson2d_condition(24));
    const std::vector<double> x_identity = system.x.to_host();
    const SolveResult plain = cg(blas, system.A, system.b, system.x, options);
    EXPECT_EQ(with_identity.iterations, plain.iterations);
    EXPECT_EQ(x_identity, system.x.to_host());
    EXPECT_EQ(M.applications(), 0u) << "the identity was applied: CG took the preconditioned path";
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, PreconditionedCg,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         test::param_name<Precision>);

// A single-precision preconditioner inside a double solve: M^-1 is then only approximately linear, but
// PCG still reaches a double-precision tolerance (the residual it checks is the solver's).
TEST(PreconditionedCgMixed, SinglePrecisionPreconditionersInADoubleSolve) {
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  const test::ScaledPoisson scaled(20);
  System system(scaled.matrix, Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::Double);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  Jacobi jacobi(blas, system.A, Precision::Single);
  const SolveResult with_jacobi = cg(blas, system.A, jacobi, system.b, system.x, options);
  test::expect_solved(with_jacobi, system, Precision::Double, 1e-10, scaled.kappa_bound);
  Chebyshev chebyshev(blas, system.A, {}, Precision::Single);
  const SolveResult with_chebyshev = cg(blas, system.A, chebyshev, system.b, system.x, options);
  test::expect_solved(with_chebyshev, system, Precision::Double, 1e-10, scaled.kappa_bound);
}

// An indefinite M on an SPD matrix: Jacobi built from a diagonal with negative entries (Jacobi's
// explicit-diagonal constructor). r'M^-1 r < 0 at the start must end the solve as NotSpd, never as
// Converged, without touching x beyond its start.
TEST(PreconditionedCgIndefinite, NegativeDefiniteMEndsNotSpd) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  System system(poisson2d(12), Format::Csr);
  for (Location location : {Location::Device, Location::Host}) {
    SCOPED_TRACE(to_string(location));
    Blas blas(test::context(), location, Precision::Double);
    std::vector<double> negated = system.A.diagonal();
    for (double& d : negated) d = -d;
    Jacobi M(blas, system.A, negated);
    EXPECT_EQ(M.first_negative_row(), 0);
    const SolveResult result = cg(blas, system.A, M, system.b, system.x);
    EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
    EXPECT_EQ(result.iterations, 0);
    EXPECT_NE(result.message.find("r'z"), std::string::npos) << result.message;
  }
}

TEST(PreconditionedCgIndefinite, OneNegativeEntryMetByTheResidualEndsNotSpd) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  // b = e_k with d_k < 0: r0'M^-1 r0 = 1 / d_k < 0.
  const HostCsrMatrix host = poisson2d(12);
  Matrix A(test::context(), host);
  const std::int32_t k = 50;
  std::vector<double> e(host.rows, 0.0), diagonal = A.diagonal();
  e[k] = 1;
  diagonal[k] = -4;
  Vector b(test::context(), e, "b"), x(test::context(), host.rows, "x");
  Blas blas(test::context(), Location::Device, Precision::Double);
  Jacobi M(blas, A, diagonal);
  EXPECT_EQ(M.first_negative_row(), k);
  const SolveResult result = cg(blas, A, M, b, x);
  EXPECT_EQ(result.status, SolveStatus::NotSpd) << result.message;
  EXPECT_EQ(result.iterations, 0);
}

TEST(PreconditionedCgAgreement, HostAndDeviceTakeTheSameIterations) {
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  const test::ScaledPoisson scaled(16);
  System system(scaled.matrix, Format::Ell);
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  Blas device(test::context(), Location::Device, Precision::Double);
  Blas host(test::context(), Location::Host, Precision::Double);
  Jacobi jacobi_device(device, system.A), jacobi_host(host, system.A);
  const SolveResult d = cg(device, system.A, jacobi_device, system.b, system.x, options);
  test::expect_solved(d, system, Precision::Double, 1e-10, scaled.kappa_bound);
  const SolveResult h = cg(host, system.A, jacobi_host, system.b, system.x, options);
  test::expect_solved(h, system, Precision::Double, 1e-10, scaled.kappa_bound);
  EXPECT_LE(std::abs(d.iterations - h.iterations), 2);
  Chebyshev chebyshev_device(device, system.A), chebyshev_host(host, system.A);
  const SolveResult cd = cg(device, system.A, chebyshev_device, system.b, system.x, options);
  test::expect_solved(cd, system, Precision::Double, 1e-10, scaled.kappa_bound);
  const SolveResult ch = cg(host, system.A, chebyshev_host, system.b, system.x, options);
  test::expect_solved(ch, system, Precision::Double, 1e-10, scaled.kappa_bound);
  EXPECT_LE(std::abs(cd.iterations - ch.iterations), 2);
}

}  // namespace
}  // namespace clkr
