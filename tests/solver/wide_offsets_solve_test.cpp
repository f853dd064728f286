// The solvers on a CSR matrix with 64-bit row offsets (MatrixOptions::wide_offsets, what a matrix past
// 2^31 - 1 entries gets): CG on each device path (fused, persistent, unfused), PCG with Jacobi and
// Chebyshev, BiCGStab, GMRES and the batched CG of solve_many, in every precision. Each solves the system
// and takes exactly the iterations, and gives exactly the x, of the same solve with 32-bit offsets.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/chebyshev.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/bicgstab.hpp"
#include "clkr/solver/cg.hpp"
#include "clkr/solver/gmres.hpp"
#include "clkr/solver/solve_many.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

using test::System;
using test::tolerance_for;

MatrixOptions offsets(bool wide) {
  MatrixOptions options;
  options.wide_offsets = wide;
  return options;
}

struct Outcome {
  SolveResult result;
  std::vector<double> x;
};

// The solve `how` names, on a fresh system whose row offsets are 64-bit or not.
Outcome solve(const HostCsrMatrix& host, Precision p, bool wide, const std::string& how) {
  System system(host, Format::Csr, offsets(wide));
  EXPECT_EQ(system.A.csr_part().wide_offsets, wide);
  Blas blas(test::context(), Location::Device, p);
  SolveOptions options;
  options.relative_tolerance = tolerance_for(p);
  options.max_iterations = 5000;
  SolveResult result;
  if (how == "cg_fused" || how == "cg_persistent" || how == "cg_unfused") {
    options.cg_path = how == "cg_fused" ? CgPath::Fused : how == "cg_persistent" ? CgPath::Persistent : CgPath::Unfused;
    result = cg(blas, system.A, system.b, system.x, options);
  } else if (how == "pcg_jacobi") {
    Jacobi M(blas, system.A);
    result = cg(blas, system.A, M, system.b, system.x, options);
  } else if (how == "pcg_chebyshev") {
    Chebyshev M(blas, system.A);
    result = cg(blas, system.A, M, system.b, system.x, options);
  } else if (how == "bicgstab") {
    result = bicgstab(blas, system.A, system.b, system.x, options);
  } else if (how == "gmres") {
    result = gmres(blas, system.A, system.b, system.x, options);
  } else {
    ADD_FAILURE() << "unknown solve " << how;
  }
  test::expect_solved(result, system, p, options.relative_tolerance, test::poisson2d_condition(30));
  return {result, system.x.to_host()};
}

class WideOffsetsSolve : public ::testing::TestWithParam<Precision> {};

TEST_P(WideOffsetsSolve, EverySolverGivesTheIterationsAndBitsOf32BitOffsets) {
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const HostCsrMatrix host = poisson2d(30);
  for (const std::string how :
       {"cg_fused", "cg_persistent", "cg_unfused", "pcg_jacobi", "pcg_chebyshev", "bicgstab", "gmres"}) {
    SCOPED_TRACE(how);
    const Outcome wide = solve(host, p, true, how);
    const Outcome narrow = solve(host, p, false, how);
    ASSERT_TRUE(wide.result.converged()) << wide.result.message;
    EXPECT_EQ(wide.result.iterations, narrow.result.iterations);
    EXPECT_EQ(wide.x, narrow.x);
  }
}

TEST_P(WideOffsetsSolve, BatchedCgColumnsMatch32BitOffsets) {
  const Precision p = GetParam();
  CLKR_SKIP_UNLESS_AVAILABLE(test::context(), p);
  const HostCsrMatrix host = poisson2d(30);
  std::vector<std::vector<double>> solutions[2];
  std::vector<int> iterations[2];
  for (bool wide : {false, true}) {
    Matrix A(test::context(), host, Format::Csr, offsets(wide));
    Blas blas(test::context(), Location::Device, p);
    std::vector<Vector> B, X;
    for (unsigned c = 0; c < 3; ++c) {
      B.emplace_back(test::context(), test::multiply(host, test::random_vector(host.rows, 20 + c)), "b");
      X.emplace_back(test::context(), host.rows, "x");
    }
    SolveOptions options;
    options.relative_tolerance = tolerance_for(p);
    const std::vector<SolveResult> results = solve_many(SolverKind::Cg, blas, A, B, X, options);
    ASSERT_EQ(results.size(), 3u);
    for (std::size_t c = 0; c < results.size(); ++c) {
      ASSERT_TRUE(results[c].converged()) << results[c].message;
      iterations[wide].push_back(results[c].iterations);
      solutions[wide].push_back(X[c].to_host());
    }
    EXPECT_GT(blas.counters().count("bcg_spmm_dot"), 0u) << "not the batched CG";
  }
  EXPECT_EQ(iterations[1], iterations[0]);
  EXPECT_EQ(solutions[1], solutions[0]);
}

INSTANTIATE_TEST_SUITE_P(Precisions, WideOffsetsSolve,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         test::param_name<Precision>);

}  // namespace
}  // namespace clkr
