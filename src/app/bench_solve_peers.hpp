// The solvers `clkr bench solve` times to a tolerance beside clkr's: on the CPU, Eigen's
// ConjugateGradient with its IncompleteCholesky and without a preconditioner, and hypre's PCG with
// BoomerAMG (one MPI process). Each run() sets up from scratch (the factorisation, the AMG hierarchy)
// and solves A x = b from x = 0 to ||b - A x|| <= tol ||b||, timing the setup and the solve apart.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bench_peers.hpp"
#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::app {

struct SolveSample {
  std::string status = "converged";  // a SolveStatus name, or "error"
  int iterations = 0;
  double setup_seconds = 0, solve_seconds = 0;
  double true_residual = std::numeric_limits<double>::quiet_NaN();  // ||b - A x|| / ||b||, long double sums
  std::string note;
};

class SolvePeer {
 public:
  virtual ~SolvePeer() = default;
  virtual SolveSample run() = 0;
  // What ran, for the report ("Eigen 3.4.0 IncompleteCholesky (AMD ordering), 2 threads").
  virtual std::string description() const = 0;
};

// Eigen::ConjugateGradient with Eigen::IncompleteCholesky (Lin and More's ICT with Eigen's default shift
// and fill) when `incomplete_cholesky`, else unpreconditioned. Throws Unavailable without Eigen.
std::unique_ptr<SolvePeer> make_eigen_solve(const HostCsrMatrix& A, const std::vector<double>& b, double tolerance,
                                            int max_iterations, bool incomplete_cholesky);

// hypre's PCG (two-norm stopping test, as clkr's) preconditioned by one BoomerAMG V-cycle with hypre's
// default options, on one MPI process. Throws Unavailable when clkr was built without hypre.
std::unique_ptr<SolvePeer> make_hypre_solve(const HostCsrMatrix& A, const std::vector<double>& b, double tolerance,
                                            int max_iterations);

}  // namespace clkr::app
