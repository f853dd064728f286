// Eigen's CG, with IncompleteCholesky or none, as a time-to-solution peer of `clkr bench solve`.
#include <thread>

#include "app_common.hpp"
#include "bench_solve_peers.hpp"

#if CLKR_HAVE_EIGEN
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>
#endif

namespace clkr::app {

#if CLKR_HAVE_EIGEN

namespace {

template <class Preconditioner>
class EigenSolve : public SolvePeer {
 public:
  EigenSolve(const HostCsrMatrix& A, const std::vector<double>& b, double tolerance, int max_iterations,
             std::string name)
      : host_(A), b_(b), name_(std::move(name)) {
    // Eigen's parallel row-major SpMV (the only multithreaded part of its CG) uses Eigen::nbThreads();
    // IncompleteCholesky wants the column-major matrix it factors.
    Eigen::setNbThreads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const std::vector<int> offsets = int32_row_offsets(A, "Eigen");
    const Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> view(
        A.rows, A.cols, A.nnz(), offsets.data(), A.col_indices.data(), A.values.data());
    matrix_ = view;
    rhs_ = Eigen::Map<const Eigen::VectorXd>(b.data(), static_cast<Eigen::Index>(b.size()));
    cg_.setTolerance(tolerance);
    cg_.setMaxIterations(max_iterations);
  }

  SolveSample run() override {
    SolveSample s;
    Stopwatch setup;
    cg_.compute(matrix_);
    s.setup_seconds = setup.seconds();
    if (cg_.preconditioner().info() != Eigen::Success) {
      s.status = "error";
      s.note = "the incomplete factorisation failed (Eigen::NumericalIssue)";
      return s;
    }
    Stopwatch solve;
    const Eigen::VectorXd x = cg_.solve(rhs_);
    s.solve_seconds = solve.seconds();
    s.iterations = static_cast<int>(cg_.iterations());
    s.status = cg_.info() == Eigen::Success ? "converged" : "max-iterations";
    s.true_residual = relative_residual(host_, b_, std::vector<double>(x.data(), x.data() + x.size()));
    return s;
  }

  std::string description() const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + " " + name_ + ", " + std::to_string(Eigen::nbThreads()) +
           " threads for its SpMV";
  }

 private:
  using Matrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
  const HostCsrMatrix& host_;
  const std::vector<double>& b_;
  std::string name_;
  Matrix matrix_;
  Eigen::VectorXd rhs_;
  Eigen::ConjugateGradient<Matrix, Eigen::Lower | Eigen::Upper, Preconditioner> cg_;
};

}  // namespace

std::unique_ptr<SolvePeer> make_eigen_solve(const HostCsrMatrix& A, const std::vector<double>& b, double tolerance,
                                            int max_iterations, bool incomplete_cholesky) {
  if (incomplete_cholesky)
    return std::make_unique<EigenSolve<Eigen::IncompleteCholesky<double, Eigen::Lower, Eigen::AMDOrdering<int>>>>(
        A, b, tolerance, max_iterations, "ConjugateGradient + IncompleteCholesky (AMD ordering)");
  return std::make_unique<EigenSolve<Eigen::IdentityPreconditioner>>(A, b, tolerance, max_iterations,
                                                                     "ConjugateGradient (no preconditioner)");
}

#else

std::unique_ptr<SolvePeer> make_eigen_solve(const HostCsrMatrix&, const std::vector<double>&, double, int, bool) {
  throw Unavailable("clkr was built without Eigen (install libeigen3-dev and rebuild)");
}

#endif

}  // namespace clkr::app
