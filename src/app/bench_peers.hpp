// The CG implementations `clkr bench cg` times, behind one interface so that their repetitions can be
// interleaved (a burst of load from another process then hits every implementation alike): clkr
// itself (bench_cg.cpp), Eigen's ConjugateGradient on the CPU cores, and ViennaCL's OpenCL CG on the
// same OpenCL device. Every one runs a fixed number of iterations (tolerance 0) on the same A and b.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "clkr/blas/op_counters.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr::app {

// A configuration an implementation does not offer (ViennaCL in quasi-double, a build without Eigen):
// reported as "unavailable", unlike a failure, which is an "error".
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Iterations of a warm-up solve.
constexpr int kWarmUpIterations = 5;

struct CgSample {
  int iterations = 0;
  double seconds = 0;                         // wall clock of the whole solve
  std::map<std::string, OpCounters> kernels;  // clkr only: the BLAS counters of this solve
  std::string stopped;                        // why it stopped early ("not-spd: ..."); empty when it ran through
};

// One implementation x format x precision on one matrix, set up and warmed up (kernels built, data
// on the device, threads started) by its constructor.
class CgRunner {
 public:
  virtual ~CgRunner() = default;
  // An untimed solve of kWarmUpIterations iterations.
  virtual void warm_up() = 0;
  // One timed solve from x = 0.
  virtual CgSample solve() = 0;
  // ||b - A x|| / ||b|| of the last solve's x, in double on the host.
  virtual double true_relative_residual() = 0;
  // What ran, for the report ("Eigen 3.4.0, 2 threads").
  virtual std::string description() const = 0;
};

// Eigen::ConjugateGradient<SparseMatrix<T, RowMajor>, Lower|Upper, IdentityPreconditioner> with T =
// float (Precision::Single) or double, on the machine's cores (Eigen's OpenMP SpMV).
std::unique_ptr<CgRunner> make_eigen_cg(const HostCsrMatrix& A, const std::vector<double>& b, int iterations,
                                        Precision precision);

// ViennaCL's CG (viennacl::linalg::cg_tag; its pipelined OpenCL variant) on a compressed_matrix
// (Format::Csr) or hyb_matrix (Format::Hyb) in float or double, on `context`'s device: ViennaCL is
// set up once per process on clkr's OpenCL context and device, with a command queue of its own.
std::unique_ptr<CgRunner> make_viennacl_cg(Context& context, const HostCsrMatrix& A, const std::vector<double>& b,
                                           int iterations, Precision precision, Format format);

}  // namespace clkr::app
