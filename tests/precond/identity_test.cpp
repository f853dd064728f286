// clkr::Identity: M^-1 r = r exactly in every precision on the host and the device, its properties,
// and the operand checks it shares with every preconditioner.
#include "clkr/precond/identity.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "precond_test_support.hpp"

namespace clkr {
namespace {

class IdentityApply : public ::testing::TestWithParam<test::LocationPrecision> {};

TEST_P(IdentityApply, CopiesRExactly) {
  const auto [location, precision] = GetParam();
  if (test::device_lacks_fp64(location, precision)) GTEST_SKIP() << "the device has no fp64";
  Matrix A(test::context(), poisson2d(33));  // 1089 rows: not a multiple of any launch size
  Blas solver(test::context(), location, precision);
  Identity M(solver, A);
  EXPECT_EQ(M.precision(), precision);
  EXPECT_EQ(M.location(), location);
  EXPECT_EQ(M.rows(), 1089);
  EXPECT_TRUE(M.symmetric());
  EXPECT_FALSE(M.variable());
  EXPECT_EQ(M.kind(), PrecondKind::None);
  EXPECT_EQ(M.description(), "none");
  std::mt19937_64 rng(6);
  // Float-exact values are exact in every precision, so z must equal them bit for bit.
  const std::vector<double> r_values = test::random_values(1089, Precision::Single, rng);
  Vector r(test::context(), r_values, "r"), z(test::context(), 1089, "z");
  test::poison(z, solver);
  M.apply(r, z);
  EXPECT_EQ(z.to_host(), r_values);
  EXPECT_EQ(r.to_host(), r_values) << "r was modified";
  EXPECT_EQ(M.applications(), 1u);
  M.update(A);  // nothing depends on the values: a no-op that still checks the shape
  M.apply(r, z);
  EXPECT_EQ(z.to_host(), r_values);
}

INSTANTIATE_TEST_SUITE_P(EveryPrecision, IdentityApply,
                         ::testing::Combine(::testing::Values(Location::Host, Location::Device),
                                            ::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double)),
                         test::location_precision_name);

TEST(Identity, ApplyAndUpdateCheckTheirOperands) {
  Matrix A(test::context(), poisson2d(10));
  Blas solver(test::context(), Location::Device, Precision::Single);
  Identity M(solver, A);
  Vector r(test::context(), 100, "r"), z(test::context(), 100, "z"), wrong(test::context(), 99, "wrong");
  EXPECT_THROW(M.apply(wrong, z), Error);
  EXPECT_THROW(M.apply(r, wrong), Error);
  EXPECT_THROW(M.apply(r, r), Error);
  const std::shared_ptr<Context> other = Context::create();
  Vector r_other(other, 100, "r");
  EXPECT_THROW(M.apply(r_other, z), Error);
  Matrix bigger(test::context(), poisson2d(11));
  EXPECT_THROW(M.update(bigger), Error);
  Matrix elsewhere(other, poisson2d(10));
  EXPECT_THROW(M.update(elsewhere), Error);
  EXPECT_THROW(Identity(solver, elsewhere), Error);
}

TEST(Identity, IsWhatMakePreconditionerGivesForNone) {
  Matrix A(test::context(), poisson2d(5));
  Blas solver(test::context(), Location::Device, Precision::Single);
  const auto M = make_preconditioner(solver, A);
  EXPECT_EQ(M->kind(), PrecondKind::None);
  EXPECT_NE(dynamic_cast<Identity*>(M.get()), nullptr);
  PrecondOptions options;
  options.kind = PrecondKind::Jacobi;
  options.precision = Precision::QuasiDouble;
  const auto J = make_preconditioner(solver, A, options);
  EXPECT_EQ(J->kind(), PrecondKind::Jacobi);
  EXPECT_EQ(J->precision(), Precision::QuasiDouble);
  EXPECT_EQ(parse_precond("Jacobi"), PrecondKind::Jacobi);
  EXPECT_EQ(to_string(PrecondKind::Chebyshev), "chebyshev");
  EXPECT_THROW(parse_precond("ilu"), Error);
}

}  // namespace
}  // namespace clkr
