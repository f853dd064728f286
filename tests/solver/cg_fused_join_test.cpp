// The fused CG's step kernel where it ends a group of the solution's steps (FusedCgSteps::update_xr with
// join_into; solver/grouped_solution.hpp): x += d + alpha p and d = 0 in the pass that updates r.
// Against a long double host reference in every precision at awkward sizes, and bit for bit the same as
// the step into d followed by the AXPY join it replaces.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "../precision_support.hpp"
#include "solver/cg_fused.hpp"
#include "solver/grouped_solution.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// Values exact in every precision (floats), so that the reference sees what the device stores.
std::vector<double> float_values(std::size_t n, unsigned seed, double scale, double offset) {
  std::vector<double> v = test::random_vector(n, seed);
  for (double& e : v) e = static_cast<float>(scale * (offset + e));
  return v;
}

// The 1D Laplacian shifted by 2 I (SPD, entries exact in every precision).
HostCsrMatrix tridiagonal(std::int32_t n) { return test::from_entries(n, test::tridiagonal_entries(n, 4.0, -1.0)); }

double unit_roundoff(Precision p) {
  return p == Precision::Single ? 0x1p-24 : p == Precision::QuasiDouble ? 0x1p-48 : 0x1p-53;
}

class FusedJoin : public ::testing::TestWithParam<std::tuple<Precision, std::int32_t>> {};

TEST_P(FusedJoin, AddsTheSumAndTheStepToXAndZeroesTheSum) {
  const auto [p, n] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const HostCsrMatrix host = tridiagonal(n);
  Matrix A(test::context(), host, Format::Csr);
  Blas blas(test::context(), Location::Device, p);
  // x far larger than the steps, as where the grouping matters; d a group's sum of steps.
  const std::vector<double> x0 = float_values(n, 1, 1e3, 2.0), d0 = float_values(n, 2, 1.0, 0.0),
                            r0 = float_values(n, 3, 1.0, 0.0), p0 = float_values(n, 4, 1.0, 0.0);

  // The step with the join, and the step into d followed by the AXPY join, each on its own vectors.
  auto step = [&](bool fused_join) {
    Vector x(test::context(), x0, "x"), d(test::context(), d0, "d"), r(test::context(), r0, "r"),
        pv(test::context(), p0, "p"), q(test::context(), n, "q");
    detail::FusedCgSteps steps(blas, A);
    steps.set_rho(blas.dot_async(r, r));
    steps.spmv_dot(pv, q);
    if (fused_join) {
      steps.update_xr(d, r, pv, q, &x);
    } else {
      steps.update_xr(d, r, pv, q);
      blas.axpy(1.0, d, x);
    }
    return std::tuple(x.to_host(), d.to_host(), r.to_host());
  };
  const auto [x, d, r] = step(true);
  const auto [x_apart, d_apart, r_apart] = step(false);

  // Host reference: alpha = r'r / p'(A p), x + d + alpha p.
  long double rr = 0, pq = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    rr += static_cast<long double>(r0[i]) * r0[i];
    long double qi = 0;
    for (std::int64_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      qi += host.values[k] * static_cast<long double>(p0[host.col_indices[k]]);
    pq += p0[i] * qi;
  }
  const long double alpha = rr / pq;
  const double u = unit_roundoff(p);
  for (std::int32_t i = 0; i < n; ++i) {
    SCOPED_TRACE("row " + std::to_string(i) + " of " + std::to_string(n) + ", " + to_string(p));
    const long double step_i = alpha * p0[i], want = x0[i] + (d0[i] + step_i);
    // Two roundings of the sums, and alpha's own error from the two reductions (n terms each).
    const long double bound =
        4 * u * (std::fabs(x0[i]) + std::fabs(d0[i]) + std::fabs(step_i)) + 4 * n * u * std::fabs(step_i);
    ASSERT_LE(std::fabs(x[i] - want), bound) << "x = " << x[i] << ", expected " << static_cast<double>(want);
    ASSERT_EQ(d[i], 0.0) << "the sum of the steps is zeroed by the join";
    ASSERT_EQ(x[i], x_apart[i]) << "the join rounds as the step into d followed by x += d";
    ASSERT_EQ(r[i], r_apart[i]);
  }
  // Without the join d keeps the step (x untouched by update_xr; the AXPY moved it).
  bool any_step = false;
  for (std::int32_t i = 0; i < n; ++i) any_step = any_step || d_apart[i] != d0[i];
  EXPECT_TRUE(any_step);
}

// Around work-group sizes (64, 256) and CPU chunk powers of two.
INSTANTIATE_TEST_SUITE_P(PrecisionsAndSizes, FusedJoin,
                         ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double),
                                            ::testing::Values(1, 3, 63, 65, 255, 257, 1023, 1025)),
                         [](const auto& info) {
                           return to_string(std::get<0>(info.param)) + "_" + std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace clkr
