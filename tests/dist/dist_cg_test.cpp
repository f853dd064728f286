// Distributed CG and Jacobi-PCG against the single-device ones: iteration counts within 2 and the same
// solution, for every CG variant, on bundled SPD matrices and a Poisson problem.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "clkr/dist/dist_solve.hpp"
#include "clkr/solver/solve.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

struct Solved {
  SolveResult result;
  std::vector<double> x;
};

Solved single_device_solve(SolverKind kind, const HostCsrMatrix& A, const std::vector<double>& b, Precision p,
                           const SolveOptions& o) {
  Matrix M(context(), A);
  Blas blas(context(), Location::Device, p);
  Vector bv(context(), b), xv(context(), b.size());
  Solved s{solve(kind, blas, M, bv, xv, o), {}};
  s.x = xv.to_host();
  return s;
}

Solved distributed_solve(SolverKind kind, const HostCsrMatrix& A, const RowPartition& partition,
                         const std::vector<double>& b, Precision p, const DistSolveOptions& o) {
  DistMatrix dA(context(), world(), local_rows_of(A, partition, rank()));
  DistBlas blas(context(), world(), p);
  DistVector db(context(), world(), partition, slice(b, partition), "b"), dx(context(), world(), partition, "x");
  Solved s{dist_solve(kind, blas, dA, db, dx, o), {}};
  s.x = dx.gather();
  return s;
}

TEST(DistCg, IterationsWithinTwoOfTheSingleDeviceCg) {
  const Precision p = test::widest_device_precision(*context());
  for (const std::string spec : {bundled("nos3.mtx"), bundled("gr_30_30.mtx"), std::string("poisson3d:10")}) {
    const HostCsrMatrix A = load_matrix(spec);
    const std::vector<double> b = random_values(static_cast<std::size_t>(A.rows), 3);
    for (SolverKind kind : {SolverKind::Cg, SolverKind::Pcg}) {
      DistSolveOptions options;
      options.solve.relative_tolerance = 1e-8;
      const Solved one = single_device_solve(kind, A, b, p, options.solve);
      ASSERT_TRUE(one.result.converged()) << spec << ": " << one.result.message;
      for (DistCgVariant variant : {DistCgVariant::Classic, DistCgVariant::SingleReduction, DistCgVariant::Pipelined}) {
        for (const NamedPartition& part : partitions_of(A)) {
          SCOPED_TRACE(spec + ", " + to_string(kind) + ", " + to_string(variant) + ", partition " + part.name);
          options.cg_variant = variant;
          const Solved many = distributed_solve(kind, A, part.partition, b, p, options);
          EXPECT_TRUE(many.result.converged()) << many.result.message;
          EXPECT_LE(std::abs(many.result.iterations - one.result.iterations), 2)
              << "distributed " << many.result.iterations << ", single device " << one.result.iterations;
          EXPECT_LE(many.result.true_relative_residual, 2e-8);
          EXPECT_LE(relative_difference(many.x, one.x), 1e-6);
        }
      }
    }
  }
}

// Pipelined CG's recurrences lose accuracy on ill-conditioned matrices: without residual replacement
// Jacobi-PCG broke down on bcsstk18 and s1rmq4m1 with "p'Ap <= 0", an SPD matrix reported as not SPD.
// It must converge on the true residual; with Jacobi (bcsstk14, 494_bus) within 1.35x of classic CG's
// iterations (measured 1.0x and 1.31x).
TEST(DistCg, PipelinedCgConvergesOnIllConditionedMatrices) {
  const Precision p = test::widest_device_precision(*context());
  if (p != Precision::Double) GTEST_SKIP() << "the stiff matrices need double";
  for (const std::string name : {"494_bus.mtx", "bcsstk14.mtx"}) {
    const HostCsrMatrix A = load_matrix(bundled(name));
    const std::vector<double> b = random_values(static_cast<std::size_t>(A.rows), 5);
    const RowPartition partition = RowPartition::uniform(A.rows, ranks());
    for (SolverKind kind : {SolverKind::Cg, SolverKind::Pcg}) {
      if (kind == SolverKind::Cg && name == "bcsstk14.mtx") continue;  // 15,000 iterations: too long here
      SCOPED_TRACE(name + ", " + to_string(kind));
      DistSolveOptions options;
      options.solve.relative_tolerance = 1e-8;
      options.solve.max_iterations = 20000;
      options.cg_variant = DistCgVariant::Classic;
      const Solved classic = distributed_solve(kind, A, partition, b, p, options);
      options.cg_variant = DistCgVariant::Pipelined;
      const Solved pipelined = distributed_solve(kind, A, partition, b, p, options);
      ASSERT_TRUE(classic.result.converged()) << classic.result.message;
      EXPECT_TRUE(pipelined.result.converged()) << pipelined.result.message;
      EXPECT_LE(pipelined.result.true_relative_residual, 2e-8);
      if (kind == SolverKind::Pcg) EXPECT_LE(pipelined.result.iterations, 1.35 * classic.result.iterations);
    }
  }
}

}  // namespace
}  // namespace clkr::dist_test
