// Eigen's conjugate gradient as the CPU reference of `clkr bench cg` (see bench_peers.hpp).
#include <thread>

#include "app_common.hpp"
#include "bench_peers.hpp"

#if CLKR_HAVE_EIGEN
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>
#endif

namespace clkr::app {

#if CLKR_HAVE_EIGEN

namespace {

template <class T>
class EigenCg : public CgRunner {
 public:
  using SparseMatrix = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
  using DenseVector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

  EigenCg(const HostCsrMatrix& A, const std::vector<double>& b, int iterations)
      : host_(A), b_(b), iterations_(iterations) {
    // Eigen's parallel row-major SpMV (the only multithreaded part of its CG) uses Eigen::nbThreads().
    Eigen::setNbThreads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const std::vector<int> offsets = int32_row_offsets(A, "Eigen");
    const Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> view(
        A.rows, A.cols, A.nnz(), offsets.data(), A.col_indices.data(), A.values.data());
    matrix_ = view.template cast<T>();
    rhs_ = Eigen::Map<const Eigen::VectorXd>(b.data(), static_cast<Eigen::Index>(b.size())).cast<T>();
    // Lower|Upper: the full matrix is used as stored, which lets Eigen run its SpMV on all threads.
    cg_.compute(matrix_);
    // Tolerance 0: Eigen stops only when ||r||^2 underflows, so it runs the requested iterations.
    cg_.setTolerance(0);
    warm_up();  // threads started, pages touched
  }

  void warm_up() override {
    cg_.setMaxIterations(std::min(iterations_, kWarmUpIterations));
    x_ = cg_.solve(rhs_);
  }

  CgSample solve() override {
    cg_.setMaxIterations(iterations_);
    Stopwatch clock;
    x_ = cg_.solve(rhs_);
    CgSample s;
    s.seconds = clock.seconds();
    s.iterations = static_cast<int>(cg_.iterations());
    return s;
  }

  double true_relative_residual() override {
    std::vector<double> x(b_.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(x_[static_cast<Eigen::Index>(i)]);
    return relative_residual(host_, b_, x);
  }

  std::string description() const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + ", " + std::to_string(Eigen::nbThreads()) + " threads";
  }

 private:
  const HostCsrMatrix& host_;
  const std::vector<double>& b_;
  int iterations_;
  SparseMatrix matrix_;
  DenseVector rhs_, x_;
  Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper, Eigen::IdentityPreconditioner> cg_;
};

}  // namespace

std::unique_ptr<CgRunner> make_eigen_cg(const HostCsrMatrix& A, const std::vector<double>& b, int iterations,
                                        Precision precision) {
  switch (precision) {
    case Precision::Single:
      return std::make_unique<EigenCg<float>>(A, b, iterations);
    case Precision::Double:
      return std::make_unique<EigenCg<double>>(A, b, iterations);
    case Precision::QuasiDouble:
      break;
  }
  throw Unavailable("Eigen has no quasi-double");
}

#else

std::unique_ptr<CgRunner> make_eigen_cg(const HostCsrMatrix&, const std::vector<double>&, int, Precision) {
  throw Unavailable("clkr was built without Eigen (install libeigen3-dev and re-run cmake)");
}

#endif

}  // namespace clkr::app
