// CG of small systems run on the host for a device Blas (CgPath::Host, and what Auto picks on CPU
// devices below cg.host_max_nnz): the same solutions and iterations as the device's fused path in every
// precision and format, with and without Jacobi, x left valid on the device, the path reported, its
// work in the counters, and the cases it refuses or leaves to the device.
#include <gtest/gtest.h>

#include <tuple>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/chebyshev.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/pcg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;

BlasOptions with_host_limit(std::size_t host_max_nnz) {
  BlasOptions options;
  options.params = device_params(test::context()->info());
  options.params->cg.host_max_nnz = host_max_nnz;
  options.params->cg.host_max_nnz_quasi_double = host_max_nnz;
  return options;
}

class HostCg : public ::testing::TestWithParam<std::tuple<Precision, Format, bool>> {};

TEST_P(HostCg, SolvesAsTheFusedDevicePathDoes) {
  const Precision p = std::get<0>(GetParam());
  const Format format = std::get<1>(GetParam());
  const bool jacobi = std::get<2>(GetParam());  // named, not a structured binding: the lambda below captures it
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const int grid = 21;  // 441 rows
  const double tol = p == Precision::Single ? 1e-5 : 1e-10;
  // Jacobi on a badly scaled Poisson matrix (where it matters), none on Poisson itself.
  const test::ScaledPoisson scaled(grid);
  const HostCsrMatrix matrix = jacobi ? scaled.matrix : poisson2d(grid);
  const double kappa = jacobi ? test::poisson2d_condition(grid) * 4 : test::poisson2d_condition(grid);
  SolveOptions options;
  options.relative_tolerance = tol;

  auto run = [&](CgPath path, System& system, Blas& blas) {
    options.cg_path = path;
    return jacobi ? pcg_jacobi(blas, system.A, system.b, system.x, options)
                  : cg(blas, system.A, system.b, system.x, options);
  };
  System host_system(matrix, format);
  Blas host_blas(test::context(), Location::Device, p);
  const SolveResult host = run(CgPath::Host, host_system, host_blas);
  test::expect_solved(host, host_system, p, tol, jacobi ? scaled.kappa_bound : kappa);
  EXPECT_EQ(host.path, "host");
  EXPECT_TRUE(host_system.x.is_valid(Location::Device, p));

  System device_system(matrix, format);
  Blas device_blas(test::context(), Location::Device, p);
  const SolveResult device = run(CgPath::Fused, device_system, device_blas);
  ASSERT_TRUE(device.converged()) << device.message;
  EXPECT_EQ(device.path, "fused");
  // The fused path sees r'r one iteration late; sums in another order shift convergence by one or two.
  EXPECT_LE(std::abs(host.iterations - device.iterations), 3) << host.iterations << " vs " << device.iterations;
  // Two solutions with relative residuals r1 and r2 differ by at most kappa (r1 + r2), relatively.
  const double kappa_a = jacobi ? scaled.kappa_bound : kappa;
  EXPECT_LE(test::relative_error(host_system.x.to_host(), device_system.x.to_host()),
            kappa_a * (host.true_relative_residual + device.true_relative_residual) + 1e-15);

  // Its work is in the counters (the program's report and the benchmarks read them); no kernel ran.
  const auto& counters = host_blas.counters();
  ASSERT_EQ(counters.count("cg_host_spmv_dot"), 1u);
  EXPECT_EQ(counters.at("cg_host_spmv_dot").calls, static_cast<std::uint64_t>(host.iterations));
  EXPECT_EQ(counters.at("cg_host_update_xr").calls, static_cast<std::uint64_t>(host.iterations));
  EXPECT_GE(counters.at("cg_host_residual").calls, 2u);  // the start and the confirmation
  EXPECT_EQ(counters.count("cg_spmv_dot"), 0u);
  EXPECT_EQ(counters.count("cg_update_xr"), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsFormatsJacobi, HostCg,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(Format::Csr, Format::Ell, Format::Hyb, Format::Sell, Format::Dia),
                       ::testing::Bool()),
    [](const auto& info) {
      return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param)) +
             (std::get<2>(info.param) ? "_jacobi" : "_none");
    });

TEST(HostCg, QuasiDoubleReachesWhatSingleCannot) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::QuasiDouble);
  System system(poisson2d(30), Format::Csr);
  Blas blas(test::context(), Location::Device, Precision::QuasiDouble);
  SolveOptions options;
  options.relative_tolerance = 1e-12;
  options.cg_path = CgPath::Host;
  const SolveResult result = cg(blas, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  EXPECT_LE(result.true_relative_residual, 1e-11);
}

TEST(HostCg, AwkwardSizesAndAnInitialGuess) {
  const Precision widest = test::widest_device_precision(*test::context());
  for (const int n : {1, 2, 3, 17}) {
    System system(poisson2d(n), Format::Csr);
    Blas blas(test::context(), Location::Device, widest);
    SolveOptions options;
    options.cg_path = CgPath::Host;
    options.relative_tolerance = 1e-10;
    const SolveResult first = cg(blas, system.A, system.b, system.x, options);
    test::expect_solved(first, system, widest, 1e-10, test::poisson2d_condition(n));
    // From the solution as initial guess: converged at the start, x unchanged to its accuracy.
    const std::vector<double> solved = system.x.to_host();
    options.use_initial_guess = true;
    const SolveResult again = cg(blas, system.A, system.b, system.x, options);
    ASSERT_TRUE(again.converged()) << again.message;
    EXPECT_LE(again.iterations, 1) << "n = " << n;
    EXPECT_LE(test::relative_error(system.x.to_host(), solved), 1e-9) << "n = " << n;
  }
  // b = 0: x = 0 at once, whatever the path.
  System zero(poisson2d(4), Format::Csr);
  zero.b.assign(std::vector<double>(16, 0.0));
  Blas blas(test::context(), Location::Device, widest);
  SolveOptions options;
  options.cg_path = CgPath::Host;
  const SolveResult result = cg(blas, zero.A, zero.b, zero.x, options);
  EXPECT_TRUE(result.converged());
  EXPECT_EQ(result.iterations, 0);
  for (double v : zero.x.to_host()) EXPECT_EQ(v, 0.0);
}

TEST(HostCg, ReportsAnIndefiniteMatrixAsTheDevicePathDoes) {
  const Precision widest = test::widest_device_precision(*test::context());
  HostCsrMatrix indefinite = poisson2d(8);
  for (std::int32_t k = indefinite.row_offsets[5]; k < indefinite.row_offsets[6]; ++k)
    if (indefinite.col_indices[k] == 5) indefinite.values[k] = -40.0;
  for (const CgPath path : {CgPath::Host, CgPath::Fused}) {
    System system(indefinite, Format::Csr);
    Blas blas(test::context(), Location::Device, widest);
    SolveOptions options;
    options.cg_path = path;
    const SolveResult result = cg(blas, system.A, system.b, system.x, options);
    EXPECT_EQ(result.status, SolveStatus::NotSpd) << to_string(path) << ": " << result.message;
    // Jacobi sees the negative diagonal entry before iterating, on either path.
    System jacobi_system(indefinite, Format::Csr);
    const SolveResult jacobi = pcg_jacobi(blas, jacobi_system.A, jacobi_system.b, jacobi_system.x, options);
    EXPECT_EQ(jacobi.status, SolveStatus::NotSpd) << to_string(path) << ": " << jacobi.message;
    EXPECT_NE(jacobi.message.find("A(5,5)"), std::string::npos) << jacobi.message;
  }
}

TEST(HostCg, AutoRunsSmallSystemsOnTheHostOfCpuDevicesOnly) {
  const Precision widest = test::widest_device_precision(*test::context());
  const bool cpu = test::context()->info().type == DeviceType::Cpu;
  const HostCsrMatrix matrix = poisson2d(20);  // 1,920 nonzeros
  SolveOptions options;
  options.relative_tolerance = 1e-10;
  {
    System system(matrix, Format::Csr);
    Blas blas(test::context(), Location::Device, widest, with_host_limit(1920));
    const SolveResult result = cg(blas, system.A, system.b, system.x, options);
    ASSERT_TRUE(result.converged()) << result.message;
    if (cpu) {
      EXPECT_EQ(result.path.rfind("host: 1920 nonzeros <= cg.host_max_nnz", 0), 0u) << result.path;
      EXPECT_NE(result.path.find(" 1920 on a CPU device"), std::string::npos) << result.path;
      EXPECT_EQ(blas.counters().count("cg_host_spmv_dot"), 1u);
    } else {
      EXPECT_EQ(result.path.rfind("host", 0), std::string::npos) << result.path;
    }
  }
  {
    System system(matrix, Format::Csr);
    Blas blas(test::context(), Location::Device, widest, with_host_limit(1919));
    const SolveResult result = cg(blas, system.A, system.b, system.x, options);
    ASSERT_TRUE(result.converged()) << result.message;
    EXPECT_EQ(result.path.rfind("host", 0), std::string::npos) << result.path;
    EXPECT_EQ(blas.counters().count("cg_host_spmv_dot"), 0u);
  }
  // The host backend itself has no path to choose.
  System system(matrix, Format::Csr);
  Blas host_backend(test::context(), Location::Host, Precision::Double, with_host_limit(1 << 20));
  const SolveResult result = cg(host_backend, system.A, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  EXPECT_EQ(result.path, "");
}

TEST(HostCg, LeavesOtherPreconditionersToTheDevice) {
  const Precision widest = test::widest_device_precision(*test::context());
  System system(poisson2d(12), Format::Csr);
  Blas blas(test::context(), Location::Device, widest, with_host_limit(1 << 20));
  Chebyshev chebyshev(blas, system.A);
  SolveOptions options;
  options.cg_path = CgPath::Host;
  try {
    cg(blas, system.A, chebyshev, system.b, system.x, options);
    ADD_FAILURE() << "CgPath::Host ran with a Chebyshev preconditioner";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not Jacobi"), std::string::npos) << e.what();
  }
  // Auto runs it on the device, whatever the size.
  options.cg_path = CgPath::Auto;
  const SolveResult result = cg(blas, system.A, chebyshev, system.b, system.x, options);
  ASSERT_TRUE(result.converged()) << result.message;
  EXPECT_EQ(result.path, "fused");
  // A Jacobi preconditioner in another precision than the solver's stays on the device too.
  if (test::context()->info().fp64) {
    Blas single(test::context(), Location::Device, Precision::Single, with_host_limit(1 << 20));
    Jacobi double_jacobi(single, system.A, Precision::Double);
    options.cg_path = CgPath::Host;
    EXPECT_THROW(cg(single, system.A, double_jacobi, system.b, system.x, options), Error);
    options.cg_path = CgPath::Auto;
    options.relative_tolerance = 1e-5;  // single precision's (1e-8 is below its floor on some paths)
    const SolveResult mixed = cg(single, system.A, double_jacobi, system.b, system.x, options);
    ASSERT_TRUE(mixed.converged()) << mixed.message;
    // The fused PCG, or on a GPU whose parameters enable it the persistent kernel, which takes Jacobi.
    EXPECT_TRUE(mixed.path == "fused" || mixed.path == "persistent") << mixed.path;
  }
}

}  // namespace
}  // namespace clkr
