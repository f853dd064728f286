// CG with A in DIA against CG with A in CSR on the same path: the same solution quality and the same
// iterations within 2, in every precision, on the fused path (kernels/solver/cg_dia.cl) in both launch
// shapes, on the persistent kernel (cg_persistent.cl with -DDIA) and on the unfused path (the Blas
// SpMV), for stencils and a band with diagonals at the matrix's corners; and AMG-preconditioned CG with
// A in DIA, its hierarchy built on the host and on the device (from csr_view.cl's copy of A).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

// SPD with diagonals -(n-1), -1, 0, 1, n-1: 2.5 on the diagonal, -1 beside it, -0.25 in the corners
// (Gershgorin: eigenvalues in [0.25, 4.75]).
HostCsrMatrix corners(std::int32_t n) {
  auto entries = test::tridiagonal_entries(n, 2.5, -1.0);
  entries.emplace_back(0, n - 1, -0.25);
  entries.emplace_back(n - 1, 0, -0.25);
  return test::from_entries(n, std::move(entries));
}

struct Problem {
  std::string name;
  HostCsrMatrix matrix;
  double kappa;
};

const std::vector<Problem>& problems() {
  static const std::vector<Problem> list = [] {
    std::vector<Problem> p;
    p.push_back({"poisson2d 21", poisson2d(21), test::poisson2d_condition(21)});
    p.push_back({"poisson3d 9", poisson3d(9), 0});
    p.push_back({"corners 500", corners(500), 19});
    const std::string path = test::matrix_path("gr_30_30.mtx");
    if (!path.empty()) p.push_back({"gr_30_30", read_matrix_market(path), 0});
    for (Problem& e : p)
      if (e.kappa == 0) e.kappa = 2 * test::condition_estimate(e.matrix);
    return p;
  }();
  return list;
}

enum class Path { FusedCpuShape, FusedGpuShape, Persistent, Unfused };

std::string path_name(Path path) {
  switch (path) {
    case Path::FusedCpuShape:
      return "fused_cpu_shape";
    case Path::FusedGpuShape:
      return "fused_gpu_shape";
    case Path::Persistent:
      return "persistent";
    case Path::Unfused:
      break;
  }
  return "unfused";
}

// The device's parameters for a path: the GPU shape is the fused kernels' grid-stride launch with
// work-groups of 64; the persistent kernel runs chunks of 5 iterations (many launches per solve) and
// waits about a second at a barrier before giving up (a busy machine may deschedule a PoCL thread).
Blas blas_for(Precision p, Path path) {
  BlasOptions options;
  options.params = device_params(test::context()->info(), "off");
  if (path == Path::FusedGpuShape) {
    options.params->blas1.variant = Blas1Variant::GridStride;
    options.params->reduction = {64, 2};
  }
  if (path == Path::Persistent) options.params->cg = CgParams{1u << 30, 64, 1, 5, 0, std::size_t{1} << 30};
  return Blas(test::context(), Location::Device, p, options);
}

CgPath cg_path(Path path) {
  return path == Path::Persistent ? CgPath::Persistent : path == Path::Unfused ? CgPath::Unfused : CgPath::Fused;
}

class DiaCg : public ::testing::TestWithParam<std::tuple<Precision, Path>> {};

TEST_P(DiaCg, MatchesCsrsIterations) {
  const auto [p, path] = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  options.max_iterations = 5000;
  options.cg_path = cg_path(path);
  for (const Problem& problem : problems()) {
    SCOPED_TRACE(problem.name);
    System csr_system(problem.matrix, Format::Csr);
    Blas csr_blas = blas_for(p, path);
    const SolveResult csr = cg(csr_blas, csr_system.A, csr_system.b, csr_system.x, options);
    ASSERT_TRUE(csr.converged()) << csr.message;

    System dia_system(problem.matrix, Format::Dia);
    Blas blas = blas_for(p, path);
    const SolveResult dia = cg(blas, dia_system.A, dia_system.b, dia_system.x, options);
    test::expect_solved(dia, dia_system, p, options.relative_tolerance, problem.kappa);
    EXPECT_LE(std::abs(dia.iterations - csr.iterations), 2) << dia.iterations << " vs " << csr.iterations;
    const auto& counters = blas.counters();
    switch (path) {
      case Path::FusedCpuShape:
      case Path::FusedGpuShape:
        EXPECT_EQ(counters.count("cg_spmv_dot"), 1u);  // DIA's fused step, not a Blas SpMV and a dot
        EXPECT_EQ(counters.count("cg_dot_partials"), 0u);
        break;
      case Path::Persistent:
        EXPECT_EQ(counters.count("cg_persistent"), 1u);
        EXPECT_EQ(counters.count("cg_update_xr"), 0u);  // no fallback to the fused path
        break;
      case Path::Unfused:  // a Blas SpMV (spmv_dia) per iteration
        ASSERT_EQ(counters.count("spmv"), 1u);
        EXPECT_GE(counters.at("spmv").calls, static_cast<std::uint64_t>(dia.iterations));
        EXPECT_EQ(counters.count("cg_spmv_dot"), 0u);
        break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsAndPaths, DiaCg,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(Path::FusedCpuShape, Path::FusedGpuShape, Path::Persistent, Path::Unfused)),
    [](const auto& info) { return to_string(std::get<0>(info.param)) + "_" + path_name(std::get<1>(info.param)); });

// AMG-PCG with A in DIA: the hierarchy built on the host (from A's host copy) and on the device (from
// the CSR copy csr_view.cl makes of A's diagonals), each taking CSR's iterations within 2.
TEST(DiaCgAmg, TakesCsrsIterationsWithEitherSetup) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), Precision::Double);
  const HostCsrMatrix host = poisson3d(14);
  for (AmgOptions::SetupOn where : {AmgOptions::SetupOn::Host, AmgOptions::SetupOn::Device}) {
    int iterations[2] = {0, 0};
    for (Format format : {Format::Csr, Format::Dia}) {
      SCOPED_TRACE(to_string(format) + (where == AmgOptions::SetupOn::Host ? " host setup" : " device setup"));
      System system(host, format);
      Blas blas(test::context(), Location::Device, Precision::Double);
      AmgOptions amg;
      amg.setup_on = where;
      Amg M(blas, system.A, amg);
      EXPECT_EQ(M.setup_location(), where == AmgOptions::SetupOn::Host ? "host" : "device") << M.setup_note();
      SolveOptions options;
      options.relative_tolerance = 1e-10;
      const SolveResult result = cg(blas, system.A, M, system.b, system.x, options);
      // poisson3d's kappa is poisson2d's of the same n (each eigenvalue is a sum of three 1-D ones).
      test::expect_solved(result, system, Precision::Double, 1e-10, test::poisson2d_condition(14));
      iterations[format == Format::Dia ? 1 : 0] = result.iterations;
    }
    EXPECT_LE(std::abs(iterations[0] - iterations[1]), 2) << iterations[0] << " vs " << iterations[1];
  }
}

}  // namespace
}  // namespace clkr
