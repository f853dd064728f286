// hypre's BoomerAMG-preconditioned PCG as a time-to-solution peer of `clkr bench solve`, on one MPI
// process (MPI is initialised on first use and finalised at exit).
#include "bench_solve_peers.hpp"

#if CLKR_HAVE_HYPRE
#include <HYPRE.h>
#include <HYPRE_krylov.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include <cstdlib>
#include <numeric>

#include "app_common.hpp"
#endif

namespace clkr::app {

#if CLKR_HAVE_HYPRE

namespace {

void start_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  MPI_Init(nullptr, nullptr);
  HYPRE_Init();
  std::atexit([] {
    HYPRE_Finalize();
    MPI_Finalize();
  });
}

class HypreSolve : public SolvePeer {
 public:
  HypreSolve(const HostCsrMatrix& A, const std::vector<double>& b, double tolerance, int max_iterations)
      : host_(A), b_(b), tolerance_(tolerance), max_iterations_(max_iterations) {
    start_mpi();
    const HYPRE_BigInt last = A.rows - 1;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, last, 0, last, &ij_matrix_);
    HYPRE_IJMatrixSetObjectType(ij_matrix_, HYPRE_PARCSR);
    std::vector<HYPRE_Int> lengths(static_cast<std::size_t>(A.rows));
    for (std::int32_t i = 0; i < A.rows; ++i) lengths[i] = A.row_offsets[i + 1] - A.row_offsets[i];
    HYPRE_IJMatrixSetRowSizes(ij_matrix_, lengths.data());
    HYPRE_IJMatrixInitialize(ij_matrix_);
    std::vector<HYPRE_BigInt> rows(static_cast<std::size_t>(A.rows));
    std::iota(rows.begin(), rows.end(), 0);
    std::vector<HYPRE_BigInt> cols(A.col_indices.begin(), A.col_indices.end());
    HYPRE_IJMatrixSetValues(ij_matrix_, A.rows, lengths.data(), rows.data(), cols.data(), A.values.data());
    HYPRE_IJMatrixAssemble(ij_matrix_);
    HYPRE_IJMatrixGetObject(ij_matrix_, reinterpret_cast<void**>(&matrix_));
    make_vector(b_vector_, &b_par_, b);
    make_vector(x_vector_, &x_par_, std::vector<double>(b.size(), 0.0));
  }

  ~HypreSolve() override {
    HYPRE_IJMatrixDestroy(ij_matrix_);
    HYPRE_IJVectorDestroy(b_vector_);
    HYPRE_IJVectorDestroy(x_vector_);
  }

  SolveSample run() override {
    SolveSample s;
    std::vector<double> zeros(b_.size(), 0.0);
    std::vector<HYPRE_BigInt> indices(b_.size());
    std::iota(indices.begin(), indices.end(), 0);
    HYPRE_IJVectorSetValues(x_vector_, static_cast<HYPRE_Int>(b_.size()), indices.data(), zeros.data());
    HYPRE_Solver solver, precond;
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &solver);
    HYPRE_PCGSetMaxIter(solver, max_iterations_);
    HYPRE_PCGSetTol(solver, tolerance_);
    HYPRE_PCGSetTwoNorm(solver, 1);  // ||r||_2 <= tol ||b||_2, clkr's test (the default is the C-norm)
    HYPRE_PCGSetPrintLevel(solver, 0);
    HYPRE_BoomerAMGCreate(&precond);
    HYPRE_BoomerAMGSetPrintLevel(precond, 0);
    HYPRE_BoomerAMGSetMaxIter(precond, 1);  // one V-cycle per application
    HYPRE_BoomerAMGSetTol(precond, 0.0);
    HYPRE_PCGSetPrecond(solver, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                        reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), precond);
    Stopwatch setup;
    HYPRE_ParCSRPCGSetup(solver, matrix_, b_par_, x_par_);
    s.setup_seconds = setup.seconds();
    Stopwatch solve;
    const HYPRE_Int error = HYPRE_ParCSRPCGSolve(solver, matrix_, b_par_, x_par_);
    s.solve_seconds = solve.seconds();
    HYPRE_Int iterations = 0;
    HYPRE_PCGGetNumIterations(solver, &iterations);
    HYPRE_Int converged = 0;
    HYPRE_PCGGetConverged(solver, &converged);
    s.iterations = iterations;
    s.status = converged ? "converged" : (error ? "error" : "max-iterations");
    if (error && !converged) s.note = "hypre error code " + std::to_string(error);
    HYPRE_ClearAllErrors();
    std::vector<double> x(b_.size());
    HYPRE_IJVectorGetValues(x_vector_, static_cast<HYPRE_Int>(x.size()), indices.data(), x.data());
    s.true_residual = relative_residual(host_, b_, x);
    HYPRE_BoomerAMGDestroy(precond);
    HYPRE_ParCSRPCGDestroy(solver);
    return s;
  }

  std::string description() const override {
    return std::string("hypre ") + HYPRE_RELEASE_VERSION + " PCG + BoomerAMG (default options), 1 MPI process";
  }

 private:
  void make_vector(HYPRE_IJVector& v, HYPRE_ParVector* par, const std::vector<double>& values) {
    const HYPRE_BigInt last = static_cast<HYPRE_BigInt>(values.size()) - 1;
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, last, &v);
    HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(v);
    std::vector<HYPRE_BigInt> indices(values.size());
    std::iota(indices.begin(), indices.end(), 0);
    HYPRE_IJVectorSetValues(v, static_cast<HYPRE_Int>(values.size()), indices.data(), values.data());
    HYPRE_IJVectorAssemble(v);
    HYPRE_IJVectorGetObject(v, reinterpret_cast<void**>(par));
  }

  const HostCsrMatrix& host_;
  const std::vector<double>& b_;
  double tolerance_;
  int max_iterations_;
  HYPRE_IJMatrix ij_matrix_;
  HYPRE_ParCSRMatrix matrix_;
  HYPRE_IJVector b_vector_, x_vector_;
  HYPRE_ParVector b_par_, x_par_;
};

}  // namespace

std::unique_ptr<SolvePeer> make_hypre_solve(const HostCsrMatrix& A, const std::vector<double>& b, double tolerance,
                                            int max_iterations) {
  return std::make_unique<HypreSolve>(A, b, tolerance, max_iterations);
}

#else

std::unique_ptr<SolvePeer> make_hypre_solve(const HostCsrMatrix&, const std::vector<double>&, double, int) {
  throw Unavailable("clkr was built without hypre (install libhypre-dev and rebuild)");
}

#endif

}  // namespace clkr::app
