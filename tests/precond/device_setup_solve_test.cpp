// AMG-PCG with the hierarchy built on the device (AmgOptions::setup_on): mesh-independent iterations on
// Poisson, iterations close to the host setup's on Poisson and on SuiteSparse elasticity matrices, the
// update step on a device-built hierarchy (scaling by 2, and re-smoothed prolongators), the choice of
// where the setup runs, and every input the host setup refuses, refused the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../precision_support.hpp"
#include "../test_matrices.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"

namespace clkr {
namespace {

AmgOptions on(AmgOptions::SetupOn where, AmgOptions options = {}) {
  options.setup_on = where;
  return options;
}

// CG with the AMG built as `options` say on A x = A x_true, x_true random, to 1e-8.
SolveResult amg_cg(const HostCsrMatrix& host, const AmgOptions& options, std::string* where = nullptr) {
  auto context = test::amg_context();
  Matrix A(context, host);
  Blas blas(context, Location::Device, Precision::Double);
  Amg M(blas, A, options);
  if (where) *where = M.setup_location();
  const std::vector<long double> x_true = [&] {
    const std::vector<double> x = test::random_values(host.rows, 3);
    return std::vector<long double>(x.begin(), x.end());
  }();
  const std::vector<long double> b_long = test::multiply(host, x_true);
  Vector b(context, std::vector<double>(b_long.begin(), b_long.end()), "b"), x(context, host.rows, "x");
  SolveOptions solve;
  solve.relative_tolerance = 1e-8;
  solve.max_iterations = 3000;
  return cg(blas, A, M, b, x, solve);
}

TEST(DeviceSetupSolve, PoissonIterationsAreMeshIndependentAndCloseToTheHostSetups) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  std::vector<int> iterations;
  for (int n : {16, 32, 64}) {
    std::string where;
    const SolveResult device = amg_cg(poisson3d(n), on(AmgOptions::SetupOn::Device), &where);
    const SolveResult host = amg_cg(poisson3d(n), on(AmgOptions::SetupOn::Host));
    EXPECT_EQ(where, "device");
    ASSERT_TRUE(device.converged()) << "poisson3d:" << n << ": " << device.message;
    EXPECT_LE(device.iterations, 1.2 * host.iterations + 1) << "poisson3d:" << n << ", host " << host.iterations;
    iterations.push_back(device.iterations);
  }
  const auto [lo, hi] = std::minmax_element(iterations.begin(), iterations.end());
  EXPECT_LE(*hi, 1.5 * *lo) << iterations[0] << ", " << iterations[1] << ", " << iterations[2];
  EXPECT_LE(*hi, 25);
}

// Aggressive coarsening of the finest level on the device (a distance-four independent set): built
// there, a lower operator complexity than without, and iterations within 1.5x of the host's aggressive
// setup and of the device's ordinary one, on Poisson and a jumping coefficient.
TEST(DeviceSetupSolve, AggressiveLevelsOnTheDeviceCoarsenMoreInComparableIterations) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  for (const HostCsrMatrix& host : {poisson3d(32), test::jumping_coefficient3d(28, 1e4)}) {
    auto context = test::amg_context();
    Matrix A(context, host);
    Blas blas(context, Location::Device, Precision::Double);
    AmgOptions aggressive = on(AmgOptions::SetupOn::Device);
    aggressive.aggressive_levels = 1;
    const Amg device_aggressive(blas, A, aggressive), device_plain(blas, A, on(AmgOptions::SetupOn::Device));
    const std::string what = std::to_string(host.rows) + " rows";
    EXPECT_EQ(device_aggressive.setup_location(), "device") << device_aggressive.setup_note();
    EXPECT_LT(device_aggressive.operator_complexity(), device_plain.operator_complexity() - 0.2) << what;
    std::string where;
    const SolveResult fast = amg_cg(host, aggressive, &where);
    EXPECT_EQ(where, "device");
    ASSERT_TRUE(fast.converged()) << what << ": " << fast.message;
    const SolveResult plain = amg_cg(host, on(AmgOptions::SetupOn::Device));
    AmgOptions host_aggressive = on(AmgOptions::SetupOn::Host);
    host_aggressive.aggressive_levels = 1;
    const SolveResult reference = amg_cg(host, host_aggressive);
    EXPECT_LE(fast.iterations, 1.5 * plain.iterations) << what << ", without: " << plain.iterations;
    EXPECT_LE(fast.iterations, 1.5 * reference.iterations) << what << ", host: " << reference.iterations;
  }
}

TEST(DeviceSetupSolve, ElasticityMatricesInIterationsCloseToTheHostSetups) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  // One unknown per node on both sides (the device setup takes no blocks): bcsstk14 (bundled) and
  // bcsstk16 (../shared, when there).
  for (const char* name : {"bcsstk14.mtx", "bcsstk16.mtx"}) {
    const std::string path = test::matrix_path(name);
    if (path.empty()) continue;
    const HostCsrMatrix A = read_matrix_market(path);
    const SolveResult device = amg_cg(A, on(AmgOptions::SetupOn::Device));
    const SolveResult host = amg_cg(A, on(AmgOptions::SetupOn::Host));
    ASSERT_TRUE(device.converged()) << name << ": " << device.message;
    EXPECT_LE(device.iterations, 1.2 * host.iterations + 2) << name << ": host " << host.iterations;
  }
}

// An update to values scaled by 2 gives the hierarchy and the iterations of a fresh device setup on
// them, with the prolongators kept and re-smoothed.
TEST(DeviceSetupSolve, UpdateAfterScalingByTwoGivesTheIterationsOfAFreshSetup) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  const HostCsrMatrix host = test::jumping_coefficient3d(20, 1e4);
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  Blas blas(context, Location::Device, Precision::Double);
  Matrix fresh_A(context, doubled);
  Amg fresh(blas, fresh_A, on(AmgOptions::SetupOn::Device));
  Vector b(context, std::vector<double>(host.rows, 1.0), "b"), x(context, host.rows, "x");
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  const SolveResult rebuilt = cg(blas, fresh_A, fresh, b, x, options);
  for (bool prolongators : {false, true}) {
    AmgOptions amg = on(AmgOptions::SetupOn::Device);
    amg.update_prolongator = prolongators;
    amg.update_on = AmgOptions::UpdateOn::Host;  // ignored: a device-built hierarchy updates on the device
    Matrix A(context, host);
    Amg M(blas, A, amg);
    A.update_values(doubled.values);
    M.update(A);
    EXPECT_FALSE(M.update_phases().empty());
    EXPECT_NE(M.update_phases().front().first, "matrix to the host");
    ASSERT_EQ(M.levels().size(), fresh.levels().size());
    for (std::size_t l = 0; l < M.levels().size(); ++l) {
      EXPECT_EQ(M.levels()[l].nnz, fresh.levels()[l].nnz);
      EXPECT_NEAR(M.levels()[l].lambda_max, fresh.levels()[l].lambda_max, 1e-12 * fresh.levels()[l].lambda_max);
    }
    x.fill(0.0);
    const SolveResult updated = cg(blas, A, M, b, x, options);
    ASSERT_TRUE(updated.converged()) << updated.message;
    EXPECT_EQ(updated.iterations, rebuilt.iterations) << (prolongators ? "re-smoothed" : "kept");
  }
}

// The finest operator in any storage format (the setup reads a CSR copy of ELL, HYB and SELL arrays,
// SELL's rows back in their order): the hierarchy, its update and the iterations of CSR's.
TEST(DeviceSetupSolve, EveryStorageFormatGivesTheHierarchyOfCsr) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  const HostCsrMatrix host = test::jumping_coefficient3d(12, 1e3);
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  Blas blas(context, Location::Device, Precision::Double);
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;
  options.sell_slice_height = 4;  // several slices and windows on 1,728 rows
  options.sell_sort_window = 64;
  std::vector<AmgLevelInfo> csr_levels;
  int csr_iterations = 0;
  for (Format format : {Format::Csr, Format::Ell, Format::Hyb, Format::Sell, Format::Dia}) {
    Matrix A(context, host, format, options);
    Amg M(blas, A, on(AmgOptions::SetupOn::Device));
    A.update_values(doubled.values);
    M.update(A);
    // The update's products read A in its own format; SELL's slices only through a CSR copy.
    bool copied = false;
    for (const auto& [phase, seconds] : M.update_phases()) copied = copied || phase == "CSR copy";
    EXPECT_EQ(copied, format == Format::Sell) << to_string(format);
    Vector b(context, std::vector<double>(host.rows, 1.0), "b"), x(context, host.rows, "x");
    SolveOptions solve;
    solve.relative_tolerance = 1e-10;
    const SolveResult r = cg(blas, A, M, b, x, solve);
    ASSERT_TRUE(r.converged()) << to_string(format) << ": " << r.message;
    if (format == Format::Csr) {
      csr_levels = M.levels();
      csr_iterations = r.iterations;
      continue;
    }
    ASSERT_EQ(M.levels().size(), csr_levels.size()) << to_string(format);
    for (std::size_t l = 0; l < csr_levels.size(); ++l) {
      EXPECT_EQ(M.levels()[l].nnz, csr_levels[l].nnz) << to_string(format) << ", level " << l;
      EXPECT_NEAR(M.levels()[l].lambda_max, csr_levels[l].lambda_max, 1e-12 * csr_levels[l].lambda_max)
          << to_string(format) << ", level " << l;
    }
    EXPECT_EQ(r.iterations, csr_iterations) << to_string(format);
  }
}

// An update may be given another Matrix object with the pattern, in another format than the setup's:
// from a DIA setup (whose CSR copy the setup let go) to SELL (which needs one again) and to CSR, the
// levels of an update in the setup's own format.
TEST(DeviceSetupSolve, UpdateTakesTheMatrixInAnotherFormat) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  const HostCsrMatrix host = test::jumping_coefficient3d(11, 1e3);
  HostCsrMatrix changed = host;
  for (std::size_t k = 0; k < changed.values.size(); ++k) changed.values[k] *= 1.5 + 0.1 * (k % 3 == 0);
  Blas blas(context, Location::Device, Precision::Double);
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;
  Matrix A(context, host, Format::Dia, options);
  ASSERT_EQ(A.format(), Format::Dia);
  Amg reference(blas, A, on(AmgOptions::SetupOn::Device));
  Matrix A2(context, host, Format::Dia, options);
  Amg M(blas, A2, on(AmgOptions::SetupOn::Device));
  A.update_values(changed.values);
  reference.update(A);
  for (Format format : {Format::Sell, Format::Csr, Format::Dia}) {
    Matrix B(context, changed, format, options);
    M.update(B);
    ASSERT_EQ(M.levels().size(), reference.levels().size());
    for (std::size_t l = 0; l < M.levels().size(); ++l)
      EXPECT_NEAR(M.levels()[l].lambda_max, reference.levels()[l].lambda_max, 1e-12 * reference.levels()[l].lambda_max)
          << to_string(format) << ", level " << l;
    Vector r(context, test::random_values(host.rows, 4), "r"), z(context, host.rows, "z"),
        z_ref(context, host.rows, "z");
    M.apply(r, z);
    reference.apply(r, z_ref);
    const std::vector<double> got = z.to_host(), expected = z_ref.to_host();
    double error = 0, size = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      error = std::max(error, std::abs(got[i] - expected[i]));
      size = std::max(size, std::abs(expected[i]));
    }
    EXPECT_LE(error, 1e-12 * size) << to_string(format);
  }
}

TEST(DeviceSetupSolve, AutoBuildsOnGpusAndTheHostWhereTheDeviceSetupCannot) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  const HostCsrMatrix host = test::vector_laplacian2d(12);
  Matrix A(context, host);
  Blas blas(context, Location::Device, Precision::Double);
  const Amg automatic(blas, A, on(AmgOptions::SetupOn::Auto));
  EXPECT_EQ(automatic.setup_location(), context->info().type == DeviceType::Cpu ? "host" : "device");
  EXPECT_TRUE(automatic.setup_note().empty());
  EXPECT_EQ(Amg(blas, A, on(AmgOptions::SetupOn::Host)).setup_location(), "host");
  AmgOptions blocks = on(AmgOptions::SetupOn::Device);
  blocks.block_size = 2;
  const Amg with_blocks(blas, A, blocks);
  EXPECT_EQ(with_blocks.setup_location(), "host");
  EXPECT_NE(with_blocks.setup_note().find("block_size 2"), std::string::npos) << with_blocks.setup_note();
  AmgOptions space = on(AmgOptions::SetupOn::Device);
  space.near_null_space = {std::vector<double>(host.rows, 1.0)};
  EXPECT_NE(Amg(blas, A, space).setup_note().find("near_null_space"), std::string::npos);
  Blas host_blas(context, Location::Host, Precision::Double);
  EXPECT_NE(Amg(host_blas, A, on(AmgOptions::SetupOn::Device)).setup_note().find("host backend"), std::string::npos);
  EXPECT_EQ(to_string(parse_amg_setup_on("Device")), "device");
  EXPECT_THROW(parse_amg_setup_on("gpu"), Error);
}

TEST(DeviceSetupSolve, RefusesWhatTheHostSetupRefuses) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  Blas blas(context, Location::Device, Precision::Double);
  auto expect_error = [&](const HostCsrMatrix& host, AmgOptions options, const std::string& words) {
    Matrix A(context, host);
    for (auto where : {AmgOptions::SetupOn::Host, AmgOptions::SetupOn::Device}) {
      options.setup_on = where;
      try {
        Amg M(blas, A, options);
        FAIL() << to_string(where) << " built: expected an error mentioning '" << words << "'";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << to_string(where) << ": " << e.what();
      }
    }
  };
  AmgOptions options;
  options.coarse_size = 10;
  HostCsrMatrix zero = poisson2d(10);
  for (std::int32_t k = zero.row_offsets[3]; k < zero.row_offsets[4]; ++k)
    if (zero.col_indices[k] == 3) zero.values[k] = 0;
  expect_error(zero, options, "A(3,3) = 0 (zero or not stored)");
  HostCsrMatrix negative = poisson2d(12);
  for (std::int32_t k = negative.row_offsets[17]; k < negative.row_offsets[18]; ++k)
    if (negative.col_indices[k] == 17) negative.values[k] = -4;
  expect_error(negative, options, "A(17,17) = -4");
  // Far from definite: a coarse diagonal turns negative.
  HostCsrMatrix shifted = poisson2d(30);
  for (std::int32_t i = 0; i < shifted.rows; ++i)
    for (std::int32_t k = shifted.row_offsets[i]; k < shifted.row_offsets[i + 1]; ++k)
      if (shifted.col_indices[k] == i) shifted.values[k] -= 3.0;
  expect_error(shifted, {}, "not positive definite");
  // Every connection weak: nothing to aggregate, too big to invert.
  expect_error(test::weakly_connected_poisson2d(80), options, "no progress on level 0");
  // One aggregate of all 20 unknowns whose coarse entry overflows.
  AmgOptions overflow = options;
  overflow.coarse_size = 1;
  overflow.strength_threshold = 0.01;
  expect_error(test::overflowing_galerkin_matrix(), overflow,
               "coarse operator of level 1 holds inf in row 0, column 0");
  AmgOptions shallow = options;
  shallow.max_levels = 1;
  expect_error(poisson2d(70), shallow, "max_levels = 1");
}

}  // namespace
}  // namespace clkr
