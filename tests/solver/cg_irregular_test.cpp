// CG on matrices with very unequal rows, with the kernels made for them, against CG on plain CSR with
// the row kernels: the same solution quality and the same iterations within 2.
// - The load-balanced CSR kernels (kernels/solver/cg_balanced.cl, cg_persistent.cl with -DBALANCED):
//   the fused path in both blockings (work-item blocks, the CPU default; work-group blocks in the GPU
//   launch shape), Jacobi-PCG on it, and the persistent kernel.
// - SELL-C-sigma (kernels/solver/cg_sell.cl) on the fused path in both launch shapes and layouts, and
//   on the unfused path (the Blas SpMV).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

// Rows of 15 to 1,015 entries (the shape) on 4,000 rows: 18x the mean at the longest.
const HostCsrMatrix& matrix() {
  static const HostCsrMatrix A = powerlaw(4000);
  return A;
}

// Gershgorin: the generator's diagonal exceeds its row's off-diagonal sum by 1 to 2, so the eigenvalues lie
// in [1, 2 max diagonal].
double condition_bound(const HostCsrMatrix& A) {
  double largest = 0;
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) largest = std::max(largest, A.values[k]);
  return 2 * largest;
}

using test::tolerance_for;

enum class LaunchShape { CpuDefaults, GpuLaunch };

// The device's parameters with the balanced kernels on (`balanced`) or off; GpuLaunch: the fused
// kernels' grid-stride launch with work-groups of 64 and the work-group row blocks, as on a GPU.
DeviceParams params_for(LaunchShape shape, bool balanced) {
  DeviceParams params = device_params(test::context()->info(), "off");
  params.spmv.csr_balanced_min_row_ratio = balanced ? 0 : std::numeric_limits<double>::infinity();
  if (shape == LaunchShape::GpuLaunch) {
    params.blas1.variant = Blas1Variant::GridStride;
    params.reduction = {64, 2};
    params.spmv.csr_balanced_blocks = RowBlocking::WorkGroup;
    params.spmv.csr_balanced_entries_per_item = 2;
  }
  return params;
}

Blas blas_with_params(Precision p, const DeviceParams& params) {
  BlasOptions options;
  options.params = params;
  return Blas(test::context(), Location::Device, p, options);
}

SolveResult solve(System& system, Blas& blas, CgPath path) {
  SolveOptions options;
  options.relative_tolerance = tolerance_for(blas.precision());
  options.max_iterations = 2000;
  options.cg_path = path;
  return cg(blas, system.A, system.b, system.x, options);
}

std::string precision_and_shape(const ::testing::TestParamInfo<std::tuple<Precision, LaunchShape>>& info) {
  return to_string(std::get<0>(info.param)) +
         (std::get<1>(info.param) == LaunchShape::GpuLaunch ? "_gpu_launch" : "_cpu_defaults");
}

class BalancedCg : public ::testing::TestWithParam<std::tuple<Precision, LaunchShape>> {};

TEST_P(BalancedCg, FusedMatchesTheUnbalancedIteration) {
  const auto [p, shape] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  System balanced_system(matrix(), Format::Csr);
  Blas blas = blas_with_params(p, params_for(shape, true));
  const SolveResult balanced = solve(balanced_system, blas, CgPath::Fused);
  test::expect_solved(balanced, balanced_system, p, tolerance_for(p), condition_bound(matrix()));
  ASSERT_EQ(blas.counters().count("cg_spmv_dot"), 1u);

  System plain_system(matrix(), Format::Csr);
  Blas plain_blas = blas_with_params(p, params_for(shape, false));
  const SolveResult plain = solve(plain_system, plain_blas, CgPath::Fused);
  ASSERT_TRUE(plain.converged()) << plain.message;
  EXPECT_LE(std::abs(balanced.iterations - plain.iterations), 2) << balanced.iterations << " vs " << plain.iterations;
}

INSTANTIATE_TEST_SUITE_P(PrecisionsAndShapes, BalancedCg,
                         ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double),
                                            ::testing::Values(LaunchShape::CpuDefaults, LaunchShape::GpuLaunch)),
                         precision_and_shape);

// The persistent kernel always takes work-group blocks (its SpMV is a work-group per block).
class BalancedPersistentCg : public ::testing::TestWithParam<Precision> {};

TEST_P(BalancedPersistentCg, MatchesTheUnbalancedIteration) {
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  auto persistent = [&](bool balanced) {
    DeviceParams params = params_for(LaunchShape::GpuLaunch, balanced);
    params.cg.persistent_work_group_size = 64;
    params.cg.persistent_iterations_per_launch = 7;          // many launches per solve
    params.cg.persistent_spin_limit = std::size_t{1} << 30;  // patient on a busy machine
    return params;
  };
  System balanced_system(matrix(), Format::Csr);
  Blas blas = blas_with_params(p, persistent(true));
  const SolveResult balanced = solve(balanced_system, blas, CgPath::Persistent);
  test::expect_solved(balanced, balanced_system, p, tolerance_for(p), condition_bound(matrix()));
  ASSERT_EQ(blas.counters().count("cg_persistent"), 1u);
  EXPECT_EQ(blas.counters().count("cg_update_xr"), 0u) << "the persistent kernel fell back to the fused path";

  System plain_system(matrix(), Format::Csr);
  Blas plain_blas = blas_with_params(p, persistent(false));
  const SolveResult plain = solve(plain_system, plain_blas, CgPath::Persistent);
  ASSERT_TRUE(plain.converged()) << plain.message;
  EXPECT_LE(std::abs(balanced.iterations - plain.iterations), 2) << balanced.iterations << " vs " << plain.iterations;
}

INSTANTIATE_TEST_SUITE_P(Precisions, BalancedPersistentCg,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         [](const auto& info) { return to_string(info.param); });

// CgPath::Auto takes the persistent kernel for a load-balanced matrix up to cg.persistent_max_balanced_nnz
// nonzeros and the fused path past it (the H200 ran powerlaw:300000 4x slower in the persistent kernel
// than its SpMV alone); a matrix without the balanced kernels is not limited by it.
TEST(BalancedPersistentCg, AutoTakesTheFusedPathPastTheEntryLimit) {
  const Precision p = test::widest_device_precision(*test::context());
  const auto nnz = static_cast<std::size_t>(matrix().nnz());
  auto ran_persistent = [&](bool balanced, std::size_t limit) {
    DeviceParams params = params_for(LaunchShape::GpuLaunch, balanced);
    params.cg.persistent_max_rows = std::size_t{1} << 30;
    params.cg.persistent_work_group_size = 64;
    params.cg.persistent_spin_limit = std::size_t{1} << 30;  // patient on a busy machine
    params.cg.persistent_max_balanced_nnz = limit;
    params.cg.host_max_nnz = 0;  // the device paths, also on a CPU device
    System system(matrix(), Format::Csr);
    Blas blas = blas_with_params(p, params);
    const SolveResult result = solve(system, blas, CgPath::Auto);
    EXPECT_TRUE(result.converged()) << result.message;
    return blas.counters().count("cg_persistent") == 1;
  };
  EXPECT_TRUE(ran_persistent(true, nnz));
  EXPECT_FALSE(ran_persistent(true, nnz - 1));
  EXPECT_TRUE(ran_persistent(false, nnz - 1));
}

// Jacobi-PCG on the fused path (its r'z and preconditioned p update around the balanced SpMV).
TEST(BalancedPcg, MatchesTheUnbalancedIteration) {
  const Precision widest = test::widest_device_precision(*test::context());
  int iterations[2] = {0, 0};
  for (bool balanced : {true, false}) {
    System system(matrix(), Format::Csr);
    Blas blas = blas_with_params(widest, params_for(LaunchShape::GpuLaunch, balanced));
    Jacobi jacobi(blas, system.A);
    SolveOptions solve_options;
    solve_options.relative_tolerance = 1e-10;
    solve_options.cg_path = CgPath::Fused;
    const SolveResult result = cg(blas, system.A, jacobi, system.b, system.x, solve_options);
    test::expect_solved(result, system, widest, 1e-10, condition_bound(matrix()));
    iterations[balanced ? 0 : 1] = result.iterations;
  }
  EXPECT_LE(std::abs(iterations[0] - iterations[1]), 2) << iterations[0] << " vs " << iterations[1];
}

class SellCg : public ::testing::TestWithParam<std::tuple<Precision, LaunchShape>> {};

TEST_P(SellCg, MatchesCsrsIteration) {
  const auto [p, shape] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const DeviceParams params = params_for(shape, false);
  System csr_system(matrix(), Format::Csr);
  Blas csr_blas = blas_with_params(p, params);
  const SolveResult csr = solve(csr_system, csr_blas, CgPath::Fused);
  ASSERT_TRUE(csr.converged()) << csr.message;
  // The device's layout, and slices of 4 rows sorted within windows of 16 (much padding).
  for (const auto& [height, window] : {std::pair<std::int32_t, std::int32_t>{0, 0}, {4, 16}}) {
    MatrixOptions options = with_sell_layout({}, params.spmv);
    if (height > 0) {
      options.sell_slice_height = height;
      options.sell_sort_window = window;
    }
    for (CgPath path : {CgPath::Fused, CgPath::Unfused}) {
      System system(matrix(), Format::Sell, options);
      Blas blas = blas_with_params(p, params);
      const SolveResult sell = solve(system, blas, path);
      SCOPED_TRACE("C=" + std::to_string(options.sell_slice_height) + " sigma=" +
                   std::to_string(options.sell_sort_window) + (path == CgPath::Fused ? " fused" : " unfused"));
      test::expect_solved(sell, system, p, tolerance_for(p), condition_bound(matrix()));
      EXPECT_LE(std::abs(sell.iterations - csr.iterations), 2) << sell.iterations << " vs " << csr.iterations;
      EXPECT_EQ(blas.counters().count("cg_spmv_dot"), path == CgPath::Fused ? 1u : 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PrecisionsAndShapes, SellCg,
                         ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble,
                                                              Precision::Double),
                                            ::testing::Values(LaunchShape::CpuDefaults, LaunchShape::GpuLaunch)),
                         precision_and_shape);

}  // namespace
}  // namespace clkr
