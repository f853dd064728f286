// Shared by the thread-safety and soak tests: one complete solve (matrix upload, Blas, preconditioner
// setup, solve, x read back) described by a small value, so that the same solve can be run
// sequentially, in threads, or thousands of times, and its outcome compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../device_memory_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/solver/solve.hpp"

namespace clkr::test {

struct SolveJob {
  std::string matrix;  // a generator spec, "poisson3d:12"
  Format format = Format::Csr;
  Precision precision = Precision::Double;
  SolverKind solver = SolverKind::Cg;
  PrecondKind precond = PrecondKind::None;
  double tolerance = 1e-8;
  // Auto runs small CG solves on the host of a CPU device; Fused keeps them on the device's kernels.
  CgPath cg_path = CgPath::Auto;

  std::string label() const {
    return matrix + " " + to_string(format) + " " + to_string(precision) + " " + to_string(solver) + "+" +
           to_string(precond);
  }
};

struct JobResult {
  SolveStatus status = SolveStatus::MaxIterations;
  int iterations = 0;
  double true_residual = 0;
  std::vector<double> x;
};

// b_i = 1 + (i mod 7) / 8: not a multiple of an eigenvector, the same on every run.
inline std::vector<double> job_rhs(std::size_t n) {
  std::vector<double> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = 1.0 + static_cast<double>(i % 7) / 8.0;
  return b;
}

// Every object the solve needs is created here and destroyed on return: nothing is shared with another
// job except the context.
inline JobResult run_job(const std::shared_ptr<Context>& context, const SolveJob& job) {
  const HostCsrMatrix host = load_matrix(job.matrix);
  Matrix A(context, host, job.format);
  Vector b(context, job_rhs(static_cast<std::size_t>(host.rows)), "b");
  Vector x(context, static_cast<std::size_t>(host.rows), "x");
  Blas blas(context, Location::Device, job.precision);
  PrecondOptions precond;
  precond.kind = job.precond;
  std::unique_ptr<Preconditioner> M = make_preconditioner(blas, A, precond);
  SolveOptions options;
  options.relative_tolerance = job.tolerance;
  options.max_iterations = 3000;
  options.cg_path = job.cg_path;
  const SolveResult r = solve(job.solver, blas, A, *M, b, x, options);
  return {r.status, r.iterations, r.true_relative_residual, x.to_host()};
}

// True when every element has the same bits (== would call -0 and 0 equal and NaN unequal to itself).
inline bool bit_identical(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace clkr::test
