// Bad input and failures on one rank: every rank must end with a CollectiveError naming the failed
// rank, and the communicator must still work afterwards (no rank was left inside a collective).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "clkr/dist/dist_solve.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

int last() { return ranks() - 1; }

// Runs `body` on every rank and expects a CollectiveError on every rank naming rank `failed` and
// containing `text`; then checks that the ranks can still reduce together.
template <class Body>
void expect_collective_error(int failed, const std::string& text, Body&& body) {
  try {
    body();
    ADD_FAILURE() << "no error on rank " << rank() << " (expected one naming rank " << failed << ")";
  } catch (const CollectiveError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("rank " + std::to_string(failed) + " of " + std::to_string(ranks()) + ": ", 0), 0u)
        << message;
    EXPECT_NE(message.find(text), std::string::npos) << message;
    ASSERT_FALSE(e.failed_ranks().empty());
    EXPECT_EQ(e.failed_ranks().front(), failed);
  }
  EXPECT_EQ(world()->allreduce_sum(1.0), ranks());
}

// poisson2d:6's rows under a uniform partition.
LocalRows poisson_rows() {
  const HostCsrMatrix A = poisson2d(6);
  return local_rows_of(A, RowPartition::uniform(A.rows, ranks()), rank());
}

TEST(DistErrors, RanksThatDisagreeOnTheSize) {
  if (ranks() < 2) GTEST_SKIP() << "needs 2 ranks";
  LocalRows rows = poisson_rows();
  if (rank() == last()) rows.global_rows += 1;
  expect_collective_error(last(), "ranks disagree on the matrix size", [&] { DistMatrix A(context(), world(), rows); });
}

TEST(DistErrors, RowsThatBelongToNoRank) {
  LocalRows rows = poisson_rows();
  if (rank() == last()) {  // the last rank drops its last row
    rows.row_offsets.pop_back();
    rows.col_indices.resize(static_cast<std::size_t>(rows.row_offsets.back()));
    rows.values.resize(rows.col_indices.size());
  }
  expect_collective_error(last(), "belong to no rank", [&] { DistMatrix A(context(), world(), rows); });
}

TEST(DistErrors, OverlappingRowBlocks) {
  if (ranks() < 2) GTEST_SKIP() << "needs 2 ranks";
  const HostCsrMatrix A = poisson2d(6);
  const RowPartition uniform = RowPartition::uniform(A.rows, ranks());
  std::vector<std::int64_t> offsets = uniform.offsets();
  LocalRows rows = local_rows_of(A, uniform, rank());
  if (rank() == 1) {  // rank 1 starts one row early: it also claims rank 0's last row
    offsets[1] -= 1;
    rows = local_rows_of(A, RowPartition(offsets), 1);
    rows.row_offsets.pop_back();  // ... and ends where it should not: drop its last row to keep the count
    rows.col_indices.resize(static_cast<std::size_t>(rows.row_offsets.back()));
    rows.values.resize(rows.col_indices.size());
  }
  expect_collective_error(1, "they overlap", [&] { DistMatrix M(context(), world(), rows); });
}

TEST(DistErrors, AColumnOutsideTheMatrix) {
  LocalRows rows = poisson_rows();
  if (rank() == last()) rows.col_indices.back() = rows.global_rows + 5;
  expect_collective_error(last(), "column " + std::to_string(36 + 5) + " outside the matrix",
                          [&] { DistMatrix A(context(), world(), rows); });
}

TEST(DistErrors, ANaNValueAndADuplicateColumn) {
  LocalRows rows = poisson_rows();
  if (rank() == 0) rows.values[0] = std::numeric_limits<double>::quiet_NaN();
  expect_collective_error(0, "is not finite", [&] { DistMatrix A(context(), world(), rows); });
  rows = poisson_rows();
  if (rank() == last()) rows.col_indices[1] = rows.col_indices[0];
  expect_collective_error(last(), "twice", [&] { DistMatrix A(context(), world(), rows); });
}

TEST(DistErrors, ARankWithoutAUsableDevice) {
  expect_collective_error(last(), "no usable device",
                          [&] { open_rank_context(*world(), rank() == last() ? "no-such-device" : ""); });
  expect_collective_error(0, "%x", [&] { open_rank_context(*world(), rank() == 0 ? "gpu%x" : ""); });
}

TEST(DistErrors, AVectorSliceOfTheWrongLength) {
  const RowPartition partition = RowPartition::uniform(10, ranks());
  std::vector<double> values(static_cast<std::size_t>(partition.count(rank())) + (rank() == last() ? 1 : 0), 1.0);
  expect_collective_error(last(), "was given", [&] { DistVector v(context(), world(), partition, values); });
}

TEST(DistErrors, SolverOptionsThatDiffer) {
  DistMatrix A(context(), world(), poisson_rows());
  DistBlas blas(context(), world(), test::widest_device_precision(*context()));
  DistVector b(context(), world(), A.partition(), std::vector<double>(A.local_rows(), 1.0), "b");
  DistVector x(context(), world(), A.partition(), "x");
  DistSolveOptions options;
  if (rank() == last()) options.solve.max_iterations = 7;
  try {
    dist_solve(SolverKind::Cg, blas, A, b, x, options);
    if (ranks() > 1) ADD_FAILURE() << "no error on rank " << rank();
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("ranks disagree on the solver"), std::string::npos) << e.what();
  }
  // NaN in b on rank 0: named with its global index.
  std::vector<double> bad(static_cast<std::size_t>(A.local_rows()), 1.0);
  if (rank() == 0 && !bad.empty()) bad[0] = std::numeric_limits<double>::infinity();
  DistVector b_bad(context(), world(), A.partition(), bad, "b");
  expect_collective_error(0, "b[0] = inf is not finite",
                          [&] { dist_solve(SolverKind::Cg, blas, A, b_bad, x, DistSolveOptions{}); });
}

// A preconditioner that fails on one rank at its third application, as running out of device memory
// in the middle of a solve would.
class FailingPreconditioner : public Preconditioner {
 public:
  FailingPreconditioner(const Blas& blas, const Matrix& A, bool fail)
      : Preconditioner(blas, A, std::nullopt, "failing"), fail_(fail) {}
  bool symmetric() const override { return true; }
  PrecondKind kind() const override { return PrecondKind::Jacobi; }
  std::string description() const override { return "failing test preconditioner"; }

 protected:
  void apply_checked(Vector& r, Vector& z) override {
    if (fail_ && ++applications_ == 3) throw Error("CL_MEM_OBJECT_ALLOCATION_FAILURE (simulated)");
    blas().copy(r, z);
  }
  void update_values(Matrix&, PhaseTimes&) override {}

 private:
  bool fail_;
  int applications_ = 0;
};

TEST(DistErrors, ARankFailingInTheMiddleOfASolve) {
  const HostCsrMatrix whole = poisson2d(12);
  DistMatrix A(context(), world(), local_rows_of(whole, RowPartition::uniform(whole.rows, ranks()), rank()));
  DistBlas blas(context(), world(), test::widest_device_precision(*context()));
  DistVector b(context(), world(), A.partition(), std::vector<double>(A.local_rows(), 1.0), "b");
  for (SolverKind kind : {SolverKind::Cg, SolverKind::BiCgStab, SolverKind::Gmres}) {
    for (DistCgVariant variant : {DistCgVariant::Classic, DistCgVariant::SingleReduction, DistCgVariant::Pipelined}) {
      SCOPED_TRACE(to_string(kind) + ", " + to_string(variant));
      FailingPreconditioner M(blas.local(), A.local_block(), rank() == last());
      DistVector x(context(), world(), A.partition(), "x");
      DistSolveOptions options;
      options.cg_variant = variant;
      expect_collective_error(last(), "(simulated)", [&] { dist_solve(kind, blas, A, M, b, x, options); });
    }
  }
  // Afterwards the same objects solve normally: no rank was left behind in an exchange.
  DistVector x(context(), world(), A.partition(), "x");
  EXPECT_TRUE(dist_solve(SolverKind::Cg, blas, A, b, x).converged());
}

}  // namespace
}  // namespace clkr::dist_test
