// Node-block smoothing (AmgOptions::block_smoothing; detail::NodeBlockInverse itself:
// node_block_inverse_test.cpp): the AMG's M^-1 r with the blocks against the host reference cycle
// (amg_reference_cycle.hpp) for every smoother, precision and location, and in one launch
// (coarse_cycle.cl) with its update; the symmetry PCG needs; fewer
// iterations where nodes couple their unknowns; no change where every node is one unknown; the update
// step; and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "../precision_support.hpp"
#include "../test_matrices.hpp"
#include "amg_reference_cycle.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "precond/amg/hierarchy.hpp"
#include "precond/node_block_inverse.hpp"
#include "precond/spectrum.hpp"

namespace clkr {
namespace {

using detail::NodeBlockInverse;
using detail::amg::HostHierarchy;
using detail::amg::NodeLayout;
using test::Vec;

// (problem, smoother, precision, location)
struct BlockProblem {
  const char* name;
  HostCsrMatrix A;
  int block_size;
  std::vector<std::int32_t> node_offsets;  // given nodes, else block_size's
};

const std::vector<BlockProblem>& block_problems() {
  static const std::vector<BlockProblem> list = [] {
    std::vector<BlockProblem> l;
    l.push_back({"vector", test::vector_laplacian2d(24), 2, {}});
    HostCsrMatrix mixed = test::vector_laplacian2d(20);
    l.push_back({"mixed_nodes", mixed, 1, test::mixed_offsets(mixed.rows)});
    return l;
  }();
  return list;
}

AmgOptions block_options(const BlockProblem& problem, AmgSmoother smoother) {
  AmgOptions options;
  options.coarse_size = 40;
  options.block_size = problem.block_size;
  options.node_offsets = problem.node_offsets;
  options.smoother = smoother;
  options.block_smoothing = AmgOptions::BlockSmoothing::On;
  options.setup_on = AmgOptions::SetupOn::Host;
  return options;
}

using BlockCycleCase = std::tuple<std::size_t, AmgSmoother, Precision, Location>;
class AmgBlockCycle : public ::testing::TestWithParam<BlockCycleCase> {};

TEST_P(AmgBlockCycle, MatchesTheHostReferenceCycle) {
  const auto [index, smoother, precision, location] = GetParam();
  const BlockProblem& problem = block_problems()[index];
  const AmgOptions options = block_options(problem, smoother);
  auto context = test::amg_context();
  if (location == Location::Device) CLKR_SKIP_UNLESS_AVAILABLE(context, precision);
  Matrix A(context, problem.A, Format::Csr);
  const bool double_here = location == Location::Host || test::device_supports(*context, Precision::Double);
  Blas solver(context, location, double_here ? Precision::Double : Precision::QuasiDouble);
  const Amg M(solver, A, options, precision);
  ASSERT_GE(M.levels().size(), 3u) << M.description();
  EXPECT_NE(M.description().find("node-block " + to_string(smoother)), std::string::npos) << M.description();

  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const HostHierarchy h(problem.A, options, detail::amg::near_null_space(options, problem.A.rows), phases);
  ASSERT_EQ(h.size(), M.levels().size());
  // Every smoothed level has nodes of several unknowns (coarse nodes: one per near-null-space vector).
  for (std::size_t l = 0; l + 1 < h.size(); ++l) EXPECT_GT(h.level(l).nodes.largest(), 1) << "level " << l;

  const std::vector<double> r = test::random_values(problem.A.rows, 29);
  Vector rv(context, r, "r"), z(context, problem.A.rows, "z");
  z.assign(std::vector<double>(problem.A.rows, std::nan("")));
  const_cast<Amg&>(M).apply(rv, z);
  const Vec reference = test::reference_cycle(h, M.levels(), options, 0, Vec(r.begin(), r.end()));
  const double tolerance = precision == Precision::Single ? 2e-5 : precision == Precision::QuasiDouble ? 1e-11 : 1e-12;
  EXPECT_LT(test::relative_error(z.to_host(), reference), tolerance) << M.description();
  // The point smoother is another operator: the reference tells them apart.
  AmgOptions point = options;
  point.block_smoothing = AmgOptions::BlockSmoothing::Off;
  const Vec point_reference = test::reference_cycle(h, M.levels(), point, 0, Vec(r.begin(), r.end()));
  EXPECT_GT(test::relative_error(std::vector<double>(reference.begin(), reference.end()), point_reference), 1e-3);
}

std::vector<BlockCycleCase> block_cycle_cases() {
  std::vector<BlockCycleCase> cases;
  for (std::size_t p = 0; p < block_problems().size(); ++p)
    for (AmgSmoother s : {AmgSmoother::Jacobi, AmgSmoother::Chebyshev, AmgSmoother::Chebyshev4})
      cases.emplace_back(p, s, Precision::Double, Location::Device);
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double})
    for (Location l : {Location::Device, Location::Host})
      if (p != Precision::Double || l != Location::Device) cases.emplace_back(1, AmgSmoother::Chebyshev, p, l);
  return cases;
}

std::string block_cycle_name(const ::testing::TestParamInfo<BlockCycleCase>& info) {
  const auto& [index, smoother, precision, location] = info.param;
  return std::string(block_problems()[index].name) + "_" + to_string(smoother) + "_" + to_string(precision) + "_" +
         to_string(location);
}

INSTANTIATE_TEST_SUITE_P(Cases, AmgBlockCycle, ::testing::ValuesIn(block_cycle_cases()), block_cycle_name);

// The cycle in one launch (kernels/precond/coarse_cycle.cl) with the blocks: its coarse levels only or
// the whole cycle, against the host reference; one launch a cycle and no other kernel for the whole
// cycle; and after an update (the blocks' new values copied into the launch's arrays) the same M^-1 r
// as the cycle launched step by step.
BlasOptions one_launch_options(bool whole) {
  BlasOptions options;
  options.params = device_params(test::amg_context()->info(), "off");
  options.params->amg_cycle.coarse_max_rows = 1u << 30;
  options.params->amg_cycle.fine_max_rows = whole ? 1u << 30 : 0;
  options.params->amg_cycle.work_group_size = 64;
  options.params->amg_cycle.lanes = 4;
  options.params->amg_cycle.groups_per_compute_unit = 2;
  options.params->cg.persistent_spin_limit = test::kPatientSpins;
  return options;
}

using OneLaunchCase = std::tuple<bool, AmgSmoother, Precision>;
class AmgBlockOneLaunch : public ::testing::TestWithParam<OneLaunchCase> {};

TEST_P(AmgBlockOneLaunch, MatchesTheHostReferenceAndTheLaunchedCycle) {
  const auto [whole, smoother, precision] = GetParam();
  const BlockProblem& problem = block_problems()[1];
  const AmgOptions options = block_options(problem, smoother);
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, precision);
  Matrix A(context, problem.A, Format::Csr);
  const Precision solver_precision =
      test::device_supports(*context, Precision::Double) ? Precision::Double : Precision::QuasiDouble;
  Blas one_launch(context, Location::Device, solver_precision, one_launch_options(whole));
  BlasOptions launched_options;
  launched_options.params = device_params(context->info(), "off");
  launched_options.params->amg_cycle.coarse_max_rows = launched_options.params->amg_cycle.fine_max_rows = 0;
  Blas launched(context, Location::Device, solver_precision, launched_options);
  Amg M(one_launch, A, options, precision), L(launched, A, options, precision);
  const std::string levels = std::to_string(M.levels().size() - 1);
  EXPECT_NE(M.description().find(std::string(whole ? "levels 0-" : "levels 1-") + levels + " in one launch"),
            std::string::npos)
      << M.description();

  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const HostHierarchy h(problem.A, options, detail::amg::near_null_space(options, problem.A.rows), phases);
  const std::vector<double> r = test::random_values(problem.A.rows, 31);
  Vector rv(context, r, "r"), z(context, problem.A.rows, "z"), zl(context, problem.A.rows, "zl");
  z.assign(std::vector<double>(problem.A.rows, std::nan("")));
  M.blas().reset_counters();
  M.apply(rv, z);
  const double tolerance = precision == Precision::Single ? 2e-5 : precision == Precision::QuasiDouble ? 1e-11 : 1e-12;
  const Vec reference = test::reference_cycle(h, M.levels(), options, 0, Vec(r.begin(), r.end()));
  EXPECT_LT(test::relative_error(z.to_host(), reference), tolerance) << M.description();
  if (whole) {
    for (const auto& [op, counter] : M.blas().counters())
      EXPECT_EQ(counter.calls, op == "amg_coarse_cycle" ? 1u : 0u) << op;
  }

  HostCsrMatrix changed = problem.A;  // new values on the same pattern: A + 0.5 I (still SPD, new blocks)
  for (std::int32_t i = 0; i < changed.rows; ++i)
    for (std::int64_t k = changed.row_offsets[i]; k < changed.row_offsets[i + 1]; ++k)
      if (changed.col_indices[k] == i) changed.values[k] += 0.5;
  A.update_values(changed);
  M.update(A);
  L.update(A);
  M.apply(rv, z);
  L.apply(rv, zl);
  const std::vector<double> launched_z = zl.to_host();
  EXPECT_LT(test::relative_error(z.to_host(), Vec(launched_z.begin(), launched_z.end())), tolerance) << M.description();
  EXPECT_GT(test::relative_error(z.to_host(), reference), 1e-3) << "the update did not reach the launch";
}

std::string one_launch_name(const ::testing::TestParamInfo<OneLaunchCase>& info) {
  const auto& [whole, smoother, precision] = info.param;
  return std::string(whole ? "whole_" : "coarse_") + to_string(smoother) + "_" + to_string(precision);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AmgBlockOneLaunch,
    ::testing::Combine(::testing::Bool(),
                       ::testing::Values(AmgSmoother::Jacobi, AmgSmoother::Chebyshev, AmgSmoother::Chebyshev4),
                       ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double)),
    one_launch_name);

class AmgBlockSolve : public ::testing::Test {
 protected:
  void SetUp() override { CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double); }
  int iterations(Blas& blas, Matrix& A, Amg& M) { return test::pcg_iterations_on_ones(blas, A, M); }
  std::shared_ptr<Context> context = test::amg_context();
};

// PCG needs M symmetric: u' M v = v' M u with the blocks (Chebyshev, one sweep each way).
TEST_F(AmgBlockSolve, TheCycleIsSymmetric) {
  const BlockProblem& problem = block_problems()[1];
  Matrix A(context, problem.A, Format::Csr);
  Blas blas(context, Location::Device, Precision::Double);
  Amg M(blas, A, block_options(problem, AmgSmoother::Chebyshev));
  const std::vector<double> u = test::random_values(problem.A.rows, 3), v = test::random_values(problem.A.rows, 4);
  Vector uv(context, u, "u"), vv(context, v, "v"), Mu(context, u.size(), "Mu"), Mv(context, v.size(), "Mv");
  M.apply(uv, Mu);
  M.apply(vv, Mv);
  const double uMv = blas.dot(uv, Mv), vMu = blas.dot(vv, Mu);
  EXPECT_NEAR(uMv, vMu, 1e-12 * std::fabs(uMv));
}

// The Cylshell matrix s2rmq4m1 (961 nodes of 1-6 unknowns, ../shared/matrices when there): the blocks
// take under 0.7x the point smoother's iterations (124 against 234 on PoCL), on the device and the host
// backend alike (within 2).
TEST_F(AmgBlockSolve, CylindricalShellTakesFewerIterations) {
  const std::string path = test::matrix_path("s2rmq4m1.mtx");
  if (path.empty()) GTEST_SKIP() << "s2rmq4m1.mtx is not in ../shared/matrices";
  Matrix A(context, read_matrix_market(path), Format::Csr);
  AmgOptions options;
  options.block_size = 0;
  options.setup_on = AmgOptions::SetupOn::Host;
  Blas device(context, Location::Device, Precision::Double), host(context, Location::Host, Precision::Double);
  options.block_smoothing = AmgOptions::BlockSmoothing::Off;
  Amg point(device, A, options);
  options.block_smoothing = AmgOptions::BlockSmoothing::On;
  Amg blocks(device, A, options), host_blocks(host, A, options);
  const int with_blocks = iterations(device, A, blocks), without = iterations(device, A, point);
  EXPECT_LT(with_blocks, 0.7 * without) << with_blocks << " against " << without;
  EXPECT_NEAR(iterations(host, A, host_blocks), with_blocks, 2);
}

// Where every node is one unknown (a scalar problem, on every level) the blocks are 1 / diag: the
// point kernels run, in as many iterations, and the description does not claim blocks.
TEST_F(AmgBlockSolve, SingleUnknownsKeepThePointSmoother) {
  Matrix A(context, poisson3d(16), Format::Csr);
  Blas blas(context, Location::Device, Precision::Double);
  AmgOptions options;
  options.setup_on = AmgOptions::SetupOn::Host;
  options.block_smoothing = AmgOptions::BlockSmoothing::Off;
  Amg point(blas, A, options);
  options.block_smoothing = AmgOptions::BlockSmoothing::On;
  Amg blocks(blas, A, options);
  EXPECT_EQ(blocks.description().find("node-block"), std::string::npos) << blocks.description();
  EXPECT_EQ(iterations(blas, A, blocks), iterations(blas, A, point));
}

// The update step refreshes the blocks: after scaling A by 2 the same iterations as a fresh setup and
// as before, on the device (the coarse operators recomputed on the host or by the device's kernels,
// whose blocks come from the operators read back) and the host backend.
TEST_F(AmgBlockSolve, UpdateRefreshesTheBlocks) {
  const BlockProblem& problem = block_problems()[1];
  for (const auto& [location, update_on] : {std::pair{Location::Device, AmgOptions::UpdateOn::Host},
                                            std::pair{Location::Device, AmgOptions::UpdateOn::Device},
                                            std::pair{Location::Host, AmgOptions::UpdateOn::Host}}) {
    Matrix A(context, problem.A, Format::Csr);
    Blas blas(context, location, Precision::Double);
    AmgOptions options = block_options(problem, AmgSmoother::Chebyshev);
    options.update_on = update_on;
    Amg M(blas, A, options);
    const int before = iterations(blas, A, M);
    HostCsrMatrix doubled = problem.A;
    for (double& v : doubled.values) v *= 2;
    A.update_values(doubled);
    M.update(A);
    Amg fresh(blas, A, options);
    const std::string where = to_string(location) + (update_on == AmgOptions::UpdateOn::Host ? ", host update" : "");
    EXPECT_EQ(iterations(blas, A, M), iterations(blas, A, fresh)) << where;
    EXPECT_NEAR(iterations(blas, A, M), before, 1) << where;
  }
}

// Two device updates in a row with values that change unevenly (each row and column by its own
// factor, so no block keeps its old inverse up to a scale): the device-updated preconditioner applies
// as the host-updated one after each. A block refreshed from stale host values, or from the previous
// update's, shows as a difference of percents.
TEST_F(AmgBlockSolve, SuccessiveDeviceUpdatesRefreshTheBlocksFromTheNewValues) {
  const BlockProblem& problem = block_problems()[1];
  Matrix A(context, problem.A, Format::Csr);
  Blas blas(context, Location::Device, Precision::Double);
  AmgOptions on_device = block_options(problem, AmgSmoother::Chebyshev), on_host = on_device;
  on_device.update_on = AmgOptions::UpdateOn::Device;
  on_host.update_on = AmgOptions::UpdateOn::Host;
  Amg D(blas, A, on_device), H(blas, A, on_host);
  const std::vector<double> r = test::random_values(problem.A.rows, 8);
  for (unsigned step = 0; step < 2; ++step) {
    HostCsrMatrix changed = problem.A;
    const std::vector<double> u = test::random_values(problem.A.rows, 20 + step);
    for (std::int32_t i = 0; i < changed.rows; ++i)
      for (std::int64_t k = changed.row_offsets[i]; k < changed.row_offsets[i + 1]; ++k)
        changed.values[k] *= (1.5 + u[i]) * (1.5 + u[changed.col_indices[k]]);  // D A D, D in [0.5, 2.5]
    A.update_values(changed.values);
    D.update(A);
    H.update(A);
    Vector rv(context, r, "r"), zd(context, r.size(), "zd"), zh(context, r.size(), "zh");
    D.apply(rv, zd);
    H.apply(rv, zh);
    const std::vector<double> host_updated = zh.to_host();
    EXPECT_LT(test::relative_error(zd.to_host(), test::Vec(host_updated.begin(), host_updated.end())), 1e-9)
        << "update " << step + 1;
  }
}

// Auto (the default): the blocks, on the device and the host backend; Amg::options() reports the
// choice, and the description follows it.
TEST_F(AmgBlockSolve, AutoChoosesTheBlocks) {
  const BlockProblem& problem = block_problems()[1];
  for (Location location : {Location::Device, Location::Host}) {
    Matrix A(context, problem.A, Format::Csr);
    Blas blas(context, location, Precision::Double);
    AmgOptions options = block_options(problem, AmgSmoother::Chebyshev);
    options.block_smoothing = AmgOptions::BlockSmoothing::Auto;
    const Amg M(blas, A, options);
    EXPECT_EQ(M.options().block_smoothing, AmgOptions::BlockSmoothing::On) << to_string(location);
    EXPECT_NE(M.description().find("node-block"), std::string::npos) << M.description();
  }
  EXPECT_EQ(AmgOptions().block_smoothing, AmgOptions::BlockSmoothing::Auto);
  EXPECT_EQ(parse_amg_block_smoothing("on"), AmgOptions::BlockSmoothing::On);
  EXPECT_EQ(parse_amg_block_smoothing("false"), AmgOptions::BlockSmoothing::Off);
  EXPECT_EQ(to_string(parse_amg_block_smoothing("auto")), "auto");
  EXPECT_THROW(parse_amg_block_smoothing("sometimes"), Error);
}

// An indefinite node block (whose diagonal entries are positive, and whose coarse operators are too) is
// refused when the smoothers are made, naming the node and the level.
TEST_F(AmgBlockSolve, RefusesAnIndefiniteNodeBlock) {
  Matrix A(context, test::with_coupling(24, 100, 4.6), Format::Csr);  // the block's eigenvalues 9.1 and -0.1
  Blas blas(context, Location::Device, Precision::Double);
  AmgOptions options;
  options.block_size = 2;
  options.coarse_size = 40;
  options.block_smoothing = AmgOptions::BlockSmoothing::On;
  options.setup_on = AmgOptions::SetupOn::Host;
  try {
    Amg M(blas, A, options);
    ADD_FAILURE() << "no error: " << M.description();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(level 0): the diagonal block of node 100 (rows 200..201) is not symmetric "
                                         "positive definite"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace clkr
