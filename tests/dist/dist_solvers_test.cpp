// Every distributed solver in every precision against the same solver on one device (convergence,
// iterations, solution), the block-Jacobi composition of the node-local preconditioners (Jacobi,
// Chebyshev, AMG), a zero right-hand side and PCG's refusal of a non-positive diagonal.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "clkr/dist/dist_solve.hpp"
#include "clkr/solver/solve.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

struct Outcome {
  SolveResult result;
  std::vector<double> x;
};

PrecondOptions precond(PrecondKind kind) {
  PrecondOptions o;
  o.kind = kind;
  return o;
}

Outcome on_one_device(SolverKind kind, const HostCsrMatrix& A, const std::vector<double>& b, Precision p,
                      PrecondKind preconditioner, const SolveOptions& options) {
  MatrixOptions matrix_options;
  matrix_options.keep_host_copy = true;
  Matrix M(context(), A, Format::Csr, matrix_options);
  Blas blas(context(), Location::Device, p);
  Vector bv(context(), b), xv(context(), b.size());
  Outcome o;
  if (preconditioner == PrecondKind::None) {
    o.result = solve(kind, blas, M, bv, xv, options);
  } else {
    const std::unique_ptr<Preconditioner> P = make_preconditioner(blas, M, precond(preconditioner));
    o.result = solve(kind, blas, M, *P, bv, xv, options);
  }
  o.x = xv.to_host();
  return o;
}

Outcome distributed(SolverKind kind, const HostCsrMatrix& A, const RowPartition& partition,
                    const std::vector<double>& b, Precision p, PrecondKind preconditioner,
                    const DistSolveOptions& options) {
  MatrixOptions matrix_options;
  matrix_options.keep_host_copy = preconditioner == PrecondKind::Amg;
  DistMatrix dA(context(), world(), local_rows_of(A, partition, rank()), Format::Csr, matrix_options);
  DistBlas blas(context(), world(), p);
  DistVector db(context(), world(), partition, slice(b, partition), "b"), dx(context(), world(), partition, "x");
  Outcome o;
  if (preconditioner == PrecondKind::None) {
    o.result = dist_solve(kind, blas, dA, db, dx, options);
  } else {
    const std::unique_ptr<Preconditioner> M = make_block_jacobi(blas, dA, precond(preconditioner));
    o.result = dist_solve(kind, blas, dA, *M, db, dx, options);
  }
  o.x = dx.gather();
  return o;
}

struct SolverCase {
  SolverKind kind;
  const char* matrix;
  PrecondKind preconditioner;
};

TEST(DistSolvers, EverySolverInEveryPrecisionAsOnOneDevice) {
  const SolverCase cases[] = {
      {SolverKind::Cg, "gr_30_30.mtx", PrecondKind::None},
      {SolverKind::Pcg, "gr_30_30.mtx", PrecondKind::None},
      {SolverKind::BiCgStab, "3-fs_541_1.mtx", PrecondKind::None},
      {SolverKind::BiCgStab, "3-fs_541_1.mtx", PrecondKind::Jacobi},
      {SolverKind::Gmres, "3-fs_541_1.mtx", PrecondKind::None},
      {SolverKind::Gmres, "3-fs_541_1.mtx", PrecondKind::Jacobi},
      {SolverKind::Fgmres, "3-fs_541_1.mtx", PrecondKind::Jacobi},
  };
  for (const SolverCase& c : cases) {
    const HostCsrMatrix A = load_matrix(bundled(c.matrix));
    const std::vector<double> b = random_values(static_cast<std::size_t>(A.rows), 11);
    std::vector<NamedPartition> partitions = partitions_of(A);
    if (partitions.size() > 4) partitions.erase(partitions.begin() + 4, partitions.end());  // drop "uneven"
    for (Precision p : kPrecisions) {
      if (!test::device_supports(*context(), p)) continue;
      DistSolveOptions options;
      options.solve.relative_tolerance = p == Precision::Single ? 1e-5 : 1e-10;
      options.solve.max_iterations = 3000;
      const Outcome one = on_one_device(c.kind, A, b, p, c.preconditioner, options.solve);
      // CG in each of its distributed variants; the other solvers have one.
      const bool cg = c.kind == SolverKind::Cg || c.kind == SolverKind::Pcg;
      const std::vector<DistCgVariant> variants =
          cg ? std::vector<DistCgVariant>{DistCgVariant::Classic, DistCgVariant::SingleReduction,
                                          DistCgVariant::Pipelined}
             : std::vector<DistCgVariant>{options.cg_variant};
      for (const DistCgVariant variant : variants) {
        options.cg_variant = variant;
        for (const NamedPartition& part : partitions) {
          SCOPED_TRACE(to_string(c.kind) + (cg ? " " + to_string(variant) : std::string()) + " (" +
                       to_string(c.preconditioner) + ") on " + c.matrix + ", " + to_string(p) + ", partition " +
                       part.name);
          const Outcome many = distributed(c.kind, A, part.partition, b, p, c.preconditioner, options);
          EXPECT_TRUE(many.result.converged()) << many.result.message;
          EXPECT_EQ(many.result.converged(), one.result.converged()) << one.result.message;
          // The true residual of the answer: what the tolerance asked, up to the precision's rounding.
          EXPECT_LE(many.result.true_relative_residual, p == Precision::Single ? 1e-4 : 1e-9);
          // Iterations as on one device: rounding differs (summation order across ranks; GMRES
          // orthogonalizes by CGS2 here, MGS there), which moves the count by a few at most.
          const int slack = 3 + one.result.iterations / 10;
          EXPECT_LE(std::abs(many.result.iterations - one.result.iterations), slack)
              << "distributed " << many.result.iterations << ", one device " << one.result.iterations;
          if (p != Precision::Single) EXPECT_LE(relative_difference(many.x, one.x), 1e-6);
        }
      }
    }
  }
}

TEST(DistSolvers, BlockJacobiComposesTheNodeLocalPreconditioners) {
  const Precision p = test::widest_device_precision(*context());
  const HostCsrMatrix A = poisson3d(12);
  const std::vector<double> b = random_values(static_cast<std::size_t>(A.rows), 5);
  const RowPartition partition = RowPartition::uniform(A.rows, ranks());
  DistSolveOptions options;
  options.solve.relative_tolerance = 1e-8;
  int iterations[4] = {};
  for (PrecondKind kind : {PrecondKind::None, PrecondKind::Jacobi, PrecondKind::Chebyshev, PrecondKind::Amg}) {
    for (SolverKind solver : {SolverKind::Cg, SolverKind::Gmres}) {
      SCOPED_TRACE(to_string(solver) + " with block-Jacobi " + to_string(kind));
      const Outcome many = distributed(solver, A, partition, b, p, kind, options);
      EXPECT_TRUE(many.result.converged()) << many.result.message;
      EXPECT_LE(many.result.true_relative_residual, 2e-8);
      if (solver == SolverKind::Cg) iterations[static_cast<int>(kind)] = many.result.iterations;
      // On one rank the block is the whole matrix: the single-device preconditioned solve.
      if (ranks() == 1) {
        const Outcome one = on_one_device(solver, A, b, p, kind, options.solve);
        EXPECT_LE(std::abs(many.result.iterations - one.result.iterations), 2)
            << "distributed " << many.result.iterations << ", one device " << one.result.iterations;
      }
    }
  }
  // Jacobi on a constant diagonal changes nothing; Chebyshev and AMG on each block cut the count.
  EXPECT_LE(std::abs(iterations[1] - iterations[0]), 2);
  EXPECT_LT(iterations[2], iterations[0]);
  EXPECT_LT(iterations[3], iterations[2]);
}

TEST(DistSolvers, AZeroRightHandSideGivesZero) {
  const HostCsrMatrix A = poisson2d(8);
  const RowPartition partition = RowPartition::uniform(A.rows, ranks());
  for (SolverKind kind : {SolverKind::Cg, SolverKind::BiCgStab, SolverKind::Gmres}) {
    DistSolveOptions options;
    options.solve.use_initial_guess = true;
    DistMatrix dA(context(), world(), local_rows_of(A, partition, rank()));
    DistBlas blas(context(), world(), test::widest_device_precision(*context()));
    DistVector b(context(), world(), partition, "b");
    DistVector x(context(), world(), partition, std::vector<double>(partition.count(rank()), 3.0), "x");
    const SolveResult r = dist_solve(kind, blas, dA, b, x, options);
    EXPECT_TRUE(r.converged()) << r.message;
    EXPECT_EQ(r.iterations, 0);
    for (double v : x.gather()) ASSERT_EQ(v, 0.0);
  }
}

// x0 solves A x = b exactly (integer values): the initial residual is zero, and so is r'M^-1 r, which
// must read as converged, not as an indefinite preconditioner.
TEST(DistSolvers, AnExactInitialGuessHasConverged) {
  const HostCsrMatrix A = poisson2d(8);
  const RowPartition partition = RowPartition::uniform(A.rows, ranks());
  std::vector<double> b(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) b[i] += A.values[k];
  DistMatrix dA(context(), world(), local_rows_of(A, partition, rank()));
  DistBlas blas(context(), world(), test::widest_device_precision(*context()));
  DistVector db(context(), world(), partition, slice(b, partition), "b");
  for (DistCgVariant variant : {DistCgVariant::Classic, DistCgVariant::SingleReduction, DistCgVariant::Pipelined}) {
    DistVector x(context(), world(), partition, std::vector<double>(partition.count(rank()), 1.0), "x");
    DistSolveOptions options;
    options.cg_variant = variant;
    options.solve.use_initial_guess = true;
    const SolveResult r = dist_solve(SolverKind::Pcg, blas, dA, db, x, options);
    EXPECT_TRUE(r.converged()) << to_string(variant) << ": " << r.message;
    EXPECT_EQ(r.iterations, 0);
  }
}

TEST(DistSolvers, PcgRefusesANonPositiveDiagonalOnEveryRank) {
  HostCsrMatrix A = poisson2d(8);
  const std::int32_t row = A.rows - 2;  // on the last rank with rows
  for (std::int32_t k = A.row_offsets[row]; k < A.row_offsets[row + 1]; ++k)
    if (A.col_indices[k] == row) A.values[k] = -1.0;
  const RowPartition partition = RowPartition::uniform(A.rows, ranks());
  DistMatrix dA(context(), world(), local_rows_of(A, partition, rank()));
  DistBlas blas(context(), world(), test::widest_device_precision(*context()));
  DistVector b(context(), world(), partition, std::vector<double>(partition.count(rank()), 1.0), "b");
  DistVector x(context(), world(), partition, "x");
  const SolveResult r = dist_solve(SolverKind::Pcg, blas, dA, b, x);
  EXPECT_EQ(r.status, SolveStatus::NotSpd);
  EXPECT_NE(r.message.find("A(" + std::to_string(row) + "," + std::to_string(row) + ") <= 0 (on rank " +
                           std::to_string(partition.owner(row)) + ")"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(r.iterations, 0);
}

}  // namespace
}  // namespace clkr::dist_test
