// The AMG cycle with its coarse levels in one launch (kernels/precond/coarse_cycle.cl): M^-1 r against
// the host reference cycle in long double (amg_reference_cycle.hpp) for every smoother, sweep count,
// the V- and the W-cycle, every precision, lanes of 1 and 4 per row and a residency probe; that the
// launch replaces the coarse levels' kernels; that an update reaches it; and that a launch whose
// work-groups cannot all meet leaves NaN, never a wrong correction, and the cycle then falls back.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <tuple>

#include "../precision_support.hpp"
#include "amg_reference_cycle.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "precond/amg/hierarchy.hpp"

namespace clkr {
namespace {

using detail::amg::HostHierarchy;
using test::reference_cycle;
using test::relative_error;
using test::Vec;

// Launch parameters without the coarse cycle (the device's defaults may have it).
BlasOptions launch_path_options() {
  BlasOptions options;
  options.params = device_params(test::amg_context()->info(), "off");
  options.params->amg_cycle.coarse_max_rows = 0;
  options.params->amg_cycle.fine_max_rows = 0;
  return options;
}

// Launch parameters with the coarse cycle from every level below the finest (the finest level's own
// launches, whatever the device's defaults).
BlasOptions coarse_cycle_options(std::size_t lanes, std::size_t groups_per_compute_unit, std::size_t spin_limit = 0) {
  BlasOptions options;
  options.params = device_params(test::amg_context()->info(), "off");
  options.params->amg_cycle.coarse_max_rows = 1u << 30;
  options.params->amg_cycle.fine_max_rows = 0;
  options.params->amg_cycle.work_group_size = 64;
  options.params->amg_cycle.lanes = lanes;
  options.params->amg_cycle.groups_per_compute_unit = groups_per_compute_unit;
  options.params->cg.persistent_spin_limit = spin_limit > 0 ? spin_limit : test::kPatientSpins;
  return options;
}

// The same with the finest level in the launch too: the whole cycle one launch.
BlasOptions whole_cycle_options(std::size_t lanes, std::size_t groups_per_compute_unit, std::size_t spin_limit = 0) {
  BlasOptions options = coarse_cycle_options(lanes, groups_per_compute_unit, spin_limit);
  options.params->amg_cycle.fine_max_rows = 1u << 30;
  return options;
}

AmgOptions cycle_options(AmgSmoother smoother, int pre, int post, int cycle_index) {
  AmgOptions options;
  options.coarse_size = 10;  // four levels on the test problem: the W-cycle's second visits run inside the launch
  options.smoother = smoother;
  options.pre_sweeps = pre;
  options.post_sweeps = post;
  options.cycle_index = cycle_index;
  options.chebyshev_degree = 3;
  options.setup_on = AmgOptions::SetupOn::Host;  // HostHierarchy mirrors the host-built one
  return options;
}

double tolerance(Precision p) { return p == Precision::Single ? 2e-5 : p == Precision::QuasiDouble ? 1e-11 : 1e-12; }

std::uint64_t calls(const Blas& blas, const std::string& op) {
  const auto it = blas.counters().find(op);
  return it == blas.counters().end() ? 0 : it->second.calls;
}

// (smoother, pre sweeps, post sweeps, cycle index, precision, lanes, groups per compute unit)
using CoarseCase = std::tuple<AmgSmoother, int, int, int, Precision, std::size_t, std::size_t>;
class AmgCoarseCycle : public ::testing::TestWithParam<CoarseCase> {};

TEST_P(AmgCoarseCycle, MatchesTheHostReferenceCycle) {
  const auto [smoother, pre, post, cycle_index, precision, lanes, groups] = GetParam();
  const HostCsrMatrix host = test::jumping_coefficient3d(11, 1e3);
  const AmgOptions options = cycle_options(smoother, pre, post, cycle_index);
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, precision);
  Matrix A(context, host, Format::Csr);
  const bool fp64 = test::device_supports(*context, Precision::Double);
  Blas solver(context, Location::Device, fp64 ? Precision::Double : Precision::QuasiDouble,
              coarse_cycle_options(lanes, groups));
  Amg M(solver, A, options, precision);
  ASSERT_GE(M.levels().size(), 4u) << M.description();

  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const HostHierarchy h(host, options, detail::amg::near_null_space(options, host.rows), phases);
  ASSERT_EQ(h.size(), M.levels().size());

  const std::vector<double> r = test::random_values(host.rows, 17);
  Vector rv(context, r, "r"), z(context, host.rows, "z");
  z.assign(std::vector<double>(host.rows, std::nan("")));  // z's old values must not matter
  M.blas().reset_counters();
  M.apply(rv, z);
  const Vec reference = reference_cycle(h, M.levels(), options, 0, Vec(r.begin(), r.end()));
  EXPECT_LT(relative_error(z.to_host(), reference), tolerance(precision)) << M.description();
  // One launch for the coarse levels: a V-cycle's level-1 visit, a W-cycle's two. Level 0's smoother
  // steps still run as kernels of their own, the coarser levels' do not.
  EXPECT_EQ(calls(M.blas(), "amg_coarse_cycle"), static_cast<std::uint64_t>(cycle_index));
  EXPECT_NE(M.description().find("levels 1-" + std::to_string(M.levels().size() - 1) + " in one launch"),
            std::string::npos)
      << M.description();
  // Level 0's R and P, each counted under its role; no other SpMV.
  EXPECT_EQ(calls(M.blas(), "restrict"), 1u);
  EXPECT_EQ(calls(M.blas(), "prolong"), 1u);
  EXPECT_EQ(calls(M.blas(), "spmv"), 0u);
}

std::vector<CoarseCase> coarse_cases() {
  std::vector<CoarseCase> cases;
  for (AmgSmoother s : {AmgSmoother::Jacobi, AmgSmoother::Chebyshev, AmgSmoother::Chebyshev4})
    for (auto [pre, post] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{0, 2}})
      for (int cycle : {1, 2}) cases.emplace_back(s, pre, post, cycle, Precision::Double, 1, 1);
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double})
    for (std::size_t lanes : {1, 4})
      for (std::size_t groups : {1, 4})
        if (p != Precision::Double || lanes != 1 || groups != 1)  // that one is above
          cases.emplace_back(AmgSmoother::Chebyshev, 1, 1, 1, p, lanes, groups);
  return cases;
}

std::string coarse_case_name(const ::testing::TestParamInfo<CoarseCase>& info) {
  const auto& [smoother, pre, post, cycle_index, precision, lanes, groups] = info.param;
  return to_string(smoother) + "_" + std::to_string(pre) + std::to_string(post) + (cycle_index == 2 ? "_W" : "_V") +
         "_" + to_string(precision) + "_lanes" + std::to_string(lanes) + "_groups" + std::to_string(groups);
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgCoarseCycle, ::testing::ValuesIn(coarse_cases()), coarse_case_name);

// Every kernel call the Blas counted but the one launch's.
std::uint64_t other_calls(const Blas& blas) {
  std::uint64_t n = 0;
  for (const auto& [op, counter] : blas.counters())
    if (op != "amg_coarse_cycle") n += counter.calls;
  return n;
}

// The whole cycle in one launch (amg_cycle.fine_max_rows): the finest level's steps read A itself where
// it is in CSR, a CSR copy of it in any other format; one launch a cycle (a W-cycle's later visits
// inside it) and no other kernel.
using WholeCase = std::tuple<Format, Precision, int>;
class AmgWholeCycle : public ::testing::TestWithParam<WholeCase> {};

TEST_P(AmgWholeCycle, MatchesTheHostReferenceCycleInOneLaunch) {
  const auto [format, precision, cycle_index] = GetParam();
  const HostCsrMatrix host = test::jumping_coefficient3d(11, 1e3);
  const AmgOptions options = cycle_options(AmgSmoother::Chebyshev, 1, 1, cycle_index);
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, precision);
  Matrix A(context, host, format);
  const bool fp64 = test::device_supports(*context, Precision::Double);
  Blas solver(context, Location::Device, fp64 ? Precision::Double : Precision::QuasiDouble, whole_cycle_options(4, 2));
  Amg M(solver, A, options, precision);
  ASSERT_GE(M.levels().size(), 4u) << M.description();

  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const HostHierarchy h(host, options, detail::amg::near_null_space(options, host.rows), phases);
  const std::vector<double> r = test::random_values(host.rows, 23);
  Vector rv(context, r, "r"), z(context, host.rows, "z");
  z.assign(std::vector<double>(host.rows, std::nan("")));
  M.blas().reset_counters();
  M.apply(rv, z);
  const Vec reference = reference_cycle(h, M.levels(), options, 0, Vec(r.begin(), r.end()));
  EXPECT_LT(relative_error(z.to_host(), reference), tolerance(precision)) << M.description();
  EXPECT_EQ(calls(M.blas(), "amg_coarse_cycle"), 1u);
  EXPECT_EQ(other_calls(M.blas()), 0u);
  EXPECT_NE(M.description().find("levels 0-" + std::to_string(M.levels().size() - 1) + " in one launch"),
            std::string::npos)
      << M.description();
  for (const AmgLevelInfo& level : M.levels()) EXPECT_EQ(level.values, to_string(precision));
}

std::string whole_case_name(const ::testing::TestParamInfo<WholeCase>& info) {
  const auto& [format, precision, cycle_index] = info.param;
  return to_string(format) + "_" + to_string(precision) + (cycle_index == 2 ? "_W" : "_V");
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgWholeCycle,
                         ::testing::Combine(::testing::Values(Format::Csr, Format::Ell, Format::Dia),
                                            ::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double),
                                            ::testing::Values(1, 2)),
                         whole_case_name);

// After new values the one-launch cycle runs on them: its updated preconditioner equals the launch
// path's (an update keeps the aggregates and prolongators, so it is not a fresh setup's). With the
// whole cycle in one launch, also where the finest level is read through its CSR copy (A in ELL) and
// where the update is given another Matrix object with the same pattern (in CSR, or in ELL after a
// setup in CSR).
struct LaunchUpdateCase {
  bool whole;
  Format setup_format;
  bool another_object;
  Format update_format;
};
class AmgCoarseCycleUpdate : public ::testing::TestWithParam<LaunchUpdateCase> {};

TEST_P(AmgCoarseCycleUpdate, AnUpdateReachesTheLaunch) {
  const LaunchUpdateCase c = GetParam();
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double);
  HostCsrMatrix host = test::jumping_coefficient3d(11, 1e3);
  Matrix A(context, host, c.setup_format);
  Blas solver(context, Location::Device, Precision::Double,
              c.whole ? whole_cycle_options(4, 1) : coarse_cycle_options(4, 1));
  Blas plain_solver(context, Location::Device, Precision::Double, launch_path_options());
  const AmgOptions options = cycle_options(AmgSmoother::Chebyshev, 1, 1, 1);
  Amg M(solver, A, options), plain(plain_solver, A, options);
  const std::vector<double> r = test::random_values(host.rows, 3);
  Vector rv(context, r, "r"), z(context, host.rows, "z"), zp(context, host.rows, "z plain");
  M.apply(rv, z);
  const std::vector<double> before = z.to_host();
  // New values, still SPD and another operator than a multiple of A: S A S with S diagonal, positive.
  auto s = [](std::int64_t i) { return 1.0 + 0.5 * std::sin(0.1 * static_cast<double>(i)); };
  for (std::int32_t i = 0; i < host.rows; ++i)
    for (std::int64_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      host.values[k] *= s(i) * s(host.col_indices[k]);
  std::optional<Matrix> other;
  if (c.another_object) {
    other.emplace(context, host, c.update_format);
  } else {
    A.update_values(host);
  }
  Matrix& updated = other ? *other : A;
  M.update(updated);
  plain.update(updated);
  M.blas().reset_counters();
  M.apply(rv, z);
  plain.apply(rv, zp);
  EXPECT_EQ(calls(M.blas(), "amg_coarse_cycle"), 1u);
  if (c.whole) EXPECT_EQ(other_calls(M.blas()), 0u);
  EXPECT_EQ(calls(plain.blas(), "amg_coarse_cycle"), 0u);
  const std::vector<double> want = zp.to_host(), got = z.to_host();
  EXPECT_LT(relative_error(got, Vec(want.begin(), want.end())), 1e-12) << M.description();
  EXPECT_GT(relative_error(got, Vec(before.begin(), before.end())), 1e-3);  // the update changed M
}

std::string launch_update_case_name(const ::testing::TestParamInfo<LaunchUpdateCase>& info) {
  const LaunchUpdateCase& c = info.param;
  return std::string(c.whole ? "whole_" : "coarse_") + to_string(c.setup_format) +
         (c.another_object ? "_then_another_" + to_string(c.update_format) : std::string("_same"));
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgCoarseCycleUpdate,
                         ::testing::Values(LaunchUpdateCase{false, Format::Csr, false, Format::Csr},
                                           LaunchUpdateCase{true, Format::Csr, false, Format::Csr},
                                           LaunchUpdateCase{true, Format::Ell, false, Format::Ell},
                                           LaunchUpdateCase{true, Format::Csr, true, Format::Csr},
                                           LaunchUpdateCase{true, Format::Csr, true, Format::Ell},
                                           LaunchUpdateCase{true, Format::Ell, true, Format::Csr}),
                         launch_update_case_name);

// With a spin limit of one poll the groups do not all reach the first barrier together: the launch
// aborts and leaves NaN in z (a solver reports it), or, had they met in time, the right z; once the
// host has read the aborted status the cycle launches the levels' kernels instead (from level 1, or
// with the whole cycle in one launch from level 0).
class AmgCoarseCycleAbort : public ::testing::TestWithParam<bool> {};

TEST_P(AmgCoarseCycleAbort, AnAbortedLaunchLeavesNanAndTheCycleFallsBack) {
  const bool whole = GetParam();
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double);
  if (context->info().compute_units < 2) GTEST_SKIP() << "one compute unit: one group, no barrier to miss";
  const HostCsrMatrix host = test::jumping_coefficient3d(11, 1e3);
  Matrix A(context, host, Format::Csr);
  Blas solver(context, Location::Device, Precision::Double,
              whole ? whole_cycle_options(1, 1, 1) : coarse_cycle_options(1, 1, 1));
  const AmgOptions options = cycle_options(AmgSmoother::Chebyshev, 1, 1, 1);
  Amg M(solver, A, options);
  Blas plain_solver(context, Location::Device, Precision::Double, launch_path_options());
  Amg plain(plain_solver, A, options);
  const std::vector<double> r = test::random_values(host.rows, 5);
  Vector rv(context, r, "r"), z(context, host.rows, "z"), expected(context, host.rows, "expected");
  plain.apply(rv, expected);
  const std::vector<double> want = expected.to_host();
  const Vec want_l(want.begin(), want.end());
  bool saw_nan = false;
  for (int k = 0; k < 40; ++k) {  // the status is read every 8 launches
    M.apply(rv, z);
    const std::vector<double> got = z.to_host();
    bool nan = false;
    for (double v : got) nan = nan || std::isnan(v);
    saw_nan = saw_nan || nan;
    if (!nan) EXPECT_LT(relative_error(got, want_l), 1e-12) << "application " << k;
  }
  EXPECT_TRUE(saw_nan) << "no launch aborted with a spin limit of one poll";
  // Fallen back: the last applications ran the levels' own kernels.
  M.blas().reset_counters();
  M.apply(rv, z);
  EXPECT_EQ(calls(M.blas(), "amg_coarse_cycle"), 0u);
  EXPECT_GT(calls(M.blas(), "restrict"), 1u);  // every level's own, not just level 0's
  EXPECT_LT(relative_error(z.to_host(), want_l), 1e-12);
  EXPECT_EQ(M.description().find("in one launch"), std::string::npos) << M.description();
}

INSTANTIATE_TEST_SUITE_P(FirstLevel, AmgCoarseCycleAbort, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("whole") : std::string("coarse");
                         });

}  // namespace
}  // namespace clkr
