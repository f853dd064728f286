// The AMG update step: new values of A on the same pattern, refreshed on the device (prolongators kept,
// R A P recomputed by kernels, in any storage format of A) or on the host (update_prolongator), each
// checked by applying M against the long-double V-cycle of a host hierarchy refreshed the same way.
#include <gtest/gtest.h>

#include "../precision_support.hpp"
#include "amg_reference_cycle.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "precond/spectrum.hpp"

namespace clkr {
namespace {

using detail::amg::HostHierarchy;
using test::relative_error;
using test::Vec;

// Symmetric new values on A's pattern, still diagonally dominant: a time step's.
HostCsrMatrix time_step_values(const HostCsrMatrix& A, unsigned seed) {
  HostCsrMatrix B = A;
  const std::vector<double> u = test::random_values(A.rows, seed);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      B.values[k] *= 1.0 + 0.3 * u[i] * u[A.col_indices[k]] + (A.col_indices[k] == i ? 0.4 : 0.0);
  return B;
}

class AmgUpdate : public ::testing::TestWithParam<std::tuple<Format, bool, Location>> {};

TEST_P(AmgUpdate, MatchesAHostHierarchyRefreshedTheSameWay) {
  const auto [format, prolongators, location] = GetParam();
  // Compared at 1e-12 with a double hierarchy: on the device that needs fp64.
  if (location == Location::Device) CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const HostCsrMatrix host = test::jumping_coefficient3d(12, 100.0);
  AmgOptions options;
  options.coarse_size = 40;
  options.update_prolongator = prolongators;
  // The host-built hierarchy, which HostHierarchy mirrors aggregate by aggregate (Auto builds on the
  // device on GPUs, with aggregates of its own: device_setup_solve_test.cpp and device_*_test.cpp test that one).
  options.setup_on = AmgOptions::SetupOn::Host;
  // The device's galerkin.cl kernels whenever the prolongators are kept (Auto would take the host's
  // products on a CPU device such as PoCL, and leave the kernels untested there).
  options.update_on = AmgOptions::UpdateOn::Device;
  auto context = test::amg_context();
  MatrixOptions matrix_options;
  matrix_options.max_ell_fill_ratio = 10;
  Matrix A(context, host, format, matrix_options);
  Blas blas(context, location, Precision::Double);
  Amg M(blas, A, options);
  ASSERT_GE(M.levels().size(), 3u);

  const HostCsrMatrix changed = time_step_values(host, 31);
  A.update_values(changed.values);
  M.update(A);
  EXPECT_FALSE(M.update_phases().empty());

  PhaseTimes times;

  detail::amg::PhaseLog phases(times);
  HostHierarchy h(host, options, detail::amg::near_null_space(options, host.rows), phases);
  h.refresh(changed, prolongators, phases);
  const std::vector<double> r = test::random_values(host.rows, 5);
  Vector rv(context, r, "r"), z(context, host.rows, "z");
  M.apply(rv, z);
  const Vec reference = test::reference_cycle(h, M.levels(), options, 0, Vec(r.begin(), r.end()));
  EXPECT_LT(relative_error(z.to_host(), reference), 1e-12) << M.description();
}

std::string update_case_name(const ::testing::TestParamInfo<std::tuple<Format, bool, Location>>& info) {
  return to_string(std::get<0>(info.param)) + (std::get<1>(info.param) ? "_prolongators" : "_kept") + "_" +
         to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgUpdate,
                         ::testing::Values(std::tuple{Format::Csr, false, Location::Device},
                                           std::tuple{Format::Csr4, false, Location::Device},
                                           std::tuple{Format::Ell, false, Location::Device},
                                           std::tuple{Format::Hyb, false, Location::Device},
                                           std::tuple{Format::Sell, false, Location::Device},
                                           std::tuple{Format::Dia, false, Location::Device},
                                           std::tuple{Format::Csr, true, Location::Device},
                                           std::tuple{Format::Csr, false, Location::Host},
                                           std::tuple{Format::Csr, true, Location::Host}),
                         update_case_name);

}  // namespace
}  // namespace clkr

namespace clkr {
namespace {

// Gershgorin's bound computed by the device kernel, for every storage format, equals the host's.
// Auto refreshes on the host on CPU devices (the phases start with reading A to the host) and with the
// kernels elsewhere; Host and Device force either; both give the same preconditioner.
TEST(AmgUpdateOn, AutoPicksTheHostOnCpuDevicesAndTheKernelsElsewhere) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const HostCsrMatrix host = test::jumping_coefficient3d(10, 100.0);
  const HostCsrMatrix changed = time_step_values(host, 7);
  auto context = test::amg_context();
  const std::vector<double> r = test::random_values(host.rows, 3);
  std::vector<std::vector<double>> results;
  for (auto where : {AmgOptions::UpdateOn::Auto, AmgOptions::UpdateOn::Host, AmgOptions::UpdateOn::Device}) {
    AmgOptions options;
    options.coarse_size = 40;
    options.update_on = where;
    options.setup_on = AmgOptions::SetupOn::Host;  // update_on chooses for host-built hierarchies only
    Matrix A(context, host);
    Blas blas(context, Location::Device, Precision::Double);
    Amg M(blas, A, options);
    A.update_values(changed.values);
    M.update(A);
    const bool host_path = M.update_phases().front().first == "matrix to the host";
    const bool expect_host = where == AmgOptions::UpdateOn::Host ||
                             (where == AmgOptions::UpdateOn::Auto && context->info().type == DeviceType::Cpu) ||
                             !context->info().fp64;
    EXPECT_EQ(host_path, expect_host) << "update_on " << static_cast<int>(where) << ": first phase "
                                      << M.update_phases().front().first;
    Vector rv(context, r, "r"), z(context, host.rows, "z");
    M.apply(rv, z);
    results.push_back(z.to_host());
  }
  EXPECT_LT(relative_error(results[1], Vec(results[2].begin(), results[2].end())), 1e-12)
      << "the host and the device refresh differ";
}

TEST(DeviceGershgorin, MatchesTheHostBoundInEveryFormat) {
  if (!test::amg_context()->info().fp64) GTEST_SKIP() << "the device bound needs fp64";
  HostCsrMatrix host = test::jumping_coefficient3d(9, 30.0);
  const std::vector<double> u = test::random_values(host.values.size(), 3);
  for (std::size_t k = 0; k < host.values.size(); ++k) host.values[k] *= 1.0 + 0.2 * u[k];  // nonsymmetric rows
  const double expected = detail::gershgorin_bound(host);
  MatrixOptions options;
  options.max_ell_fill_ratio = 10;
  for (Format format : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell, Format::Dia}) {
    Matrix A(test::amg_context(), host, format, options);
    EXPECT_NEAR(detail::gershgorin_bound(A), expected, 1e-14 * expected) << to_string(format);
  }
}

}  // namespace
}  // namespace clkr

namespace clkr {
namespace {

// The device update of a single-precision hierarchy (the Galerkin products in double, then narrowed;
// 1/diag written in double and read in single) applies as the double hierarchy updated the same way,
// to single precision.
TEST(AmgUpdateSingle, DeviceUpdateOfASinglePrecisionHierarchyMatchesTheDoubleOne) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  const HostCsrMatrix host = test::jumping_coefficient3d(11, 100.0);
  const HostCsrMatrix changed = time_step_values(host, 13);
  AmgOptions options;
  options.coarse_size = 40;
  options.update_on = AmgOptions::UpdateOn::Device;
  const std::vector<double> r = test::random_values(host.rows, 8);
  std::vector<std::vector<double>> results;
  for (Precision p : {Precision::Single, Precision::Double}) {
    Matrix A(context, host);
    Blas blas(context, Location::Device, Precision::Double);
    Amg M(blas, A, options, p);
    A.update_values(changed.values);
    M.update(A);
    EXPECT_EQ(M.update_phases().front().first, "galerkin product") << to_string(p);
    Vector rv(context, r, "r"), z(context, host.rows, "z");
    M.apply(rv, z);
    results.push_back(z.to_host());
  }
  EXPECT_LT(relative_error(results[0], Vec(results[1].begin(), results[1].end())), 1e-5);
}

}  // namespace
}  // namespace clkr
