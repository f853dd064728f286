// BiCGStab specifics: the (r0, Ap) = 0 breakdown (the shared non-symmetric tests are in
// nonsymmetric_test.cpp).
#include "clkr/solver/bicgstab.hpp"

#include <gtest/gtest.h>

#include "../precision_support.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

// A skew-symmetric A has (r, A r) = 0 for every r, so (r0, A p) = (r0, A r0) = 0 at the first step.
// Integer b and entries +-1 make every product and sum exact, so the zero is exact too.
TEST(BiCgStab, ReportsBreakdownWhenShadowResidualIsOrthogonal) {
  // Double, or quasi-double on a device without fp64: what is checked holds in either.
  const Precision widest = test::widest_device_precision(*test::context());
  const std::int32_t n = 40;  // even: the skew-symmetric tridiagonal matrix is then nonsingular
  std::vector<std::tuple<std::int32_t, std::int32_t, double>> entries;
  for (std::int32_t i = 0; i + 1 < n; ++i) entries.insert(entries.end(), {{i, i + 1, 1.0}, {i + 1, i, -1.0}});
  System system(test::from_entries(n, entries), Format::Csr);
  std::vector<double> b = test::random_vector(n, 21);
  for (double& e : b) e = std::round(3 * e);
  b[0] = 2;  // never all zero
  system.b.assign(b);
  Blas blas(test::context(), Location::Device, widest);
  const SolveResult result = bicgstab(blas, system.A, system.b, system.x);
  EXPECT_EQ(result.status, SolveStatus::Breakdown) << result.message;
  EXPECT_EQ(result.iterations, 0);
  EXPECT_NE(result.message.find("(r0, Ap) = 0"), std::string::npos) << result.message;
}

}  // namespace
}  // namespace clkr
