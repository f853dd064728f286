// clkr::Blas: the BLAS level. Bound to a context, a location (the device, or the host reference
// implementation) and a precision, it runs AXPY, AYPX, DOT, NRM2, SCAL, COPY and SpMV on Vectors and
// Matrices, bringing operands to its location/precision through the data-structure level, and keeps
// per-operation performance counters (as CUKr's BLAS object did).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "clkr/blas/device_params.hpp"
#include "clkr/blas/device_scalar.hpp"
#include "clkr/blas/op_counters.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr {

struct BlasOptions {
  // SpMV in single precision: accumulate each row with Kahan compensation.
  bool kahan_spmv = false;
  // SpMV in single precision on the device (spmv and the preconditioners' fused SpMV steps): Half
  // reads each matrix's binary16 copy where its values fit (Matrix::csr_values says when; ValueStorage
  // in clkr/data/precision.hpp), its single values elsewhere. The host backend computes from the
  // host CSR whatever this says, and the solvers' fused kernels read the working values.
  ValueStorage matrix_values = ValueStorage::Working;
  // Launch parameters to use instead of device_params(context->info()) (tests, benchmarks, tuning).
  std::optional<DeviceParams> params;
};

class Blas {
 public:
  // Throws clkr::Error when precision is Double and the device has no fp64 (location Device).
  Blas(std::shared_ptr<Context> context, Location location, Precision precision, BlasOptions options = {});
  ~Blas();
  Blas(Blas&&) noexcept;
  Blas& operator=(Blas&&) noexcept;

  Location location() const;
  Precision precision() const;
  const std::shared_ptr<Context>& context() const;
  const DeviceParams& params() const;
  const BlasOptions& options() const;

  // y = a*x + y
  void axpy(double a, Vector& x, Vector& y);
  // y = a*y + x
  void aypx(double a, Vector& x, Vector& y);
  // x = a*x
  void scal(double a, Vector& x);
  // y = x (a buffer copy on GPUs, a kernel on CPUs: kernels/blas1/copy.cl)
  void copy(Vector& x, Vector& y);
  // x'y, reduced fully on the device in the Blas's precision (quasi-double: in quasi-double
  // arithmetic); the DeviceScalar is read back only when its value is asked for.
  DeviceScalar dot_async(Vector& x, Vector& y);
  // The same into `result`, a device buffer of one element of the Blas's precision that the caller
  // keeps across calls (the DeviceScalar refers to it): on NVIDIA's OpenCL a buffer allocated and
  // released around its kernel costs ~80 us, against ~6 us for the kernel alone. The host backend
  // ignores `result`.
  DeviceScalar dot_async(Vector& x, Vector& y, const cl::Buffer& result);
  double dot(Vector& x, Vector& y);
  double nrm2(Vector& x);
  // y = alpha*A*x + beta*y (beta == 0: y is not read, so NaN in y does not propagate)
  void spmv(double alpha, Matrix& A, Vector& x, double beta, Vector& y);
  // The same, counted under `op` instead of "spmv", so that a profile tells apart SpMVs of different
  // roles (the AMG cycle's restriction and prolongation).
  void spmv(double alpha, Matrix& A, Vector& x, double beta, Vector& y, const std::string& op);

  // ---- fused elementwise kernels of the levels above (preconditioners, solvers) -------------------
  // A kernel of `file` built as the BLAS1 kernels are (this Blas's precision and vector split, see
  // kernels/blas1/blas1.cl: ELEMENTWISE_LOOP), cached by name. Its first two parameters must be
  // `const ulong n, const ulong chunk`. Device location only.
  cl::Kernel& elementwise_kernel(const std::string& file, const std::string& name);
  // Launches such a kernel over n elements with the BLAS1 launch geometry, after setting its first two
  // arguments (the caller has set the others), and counts it under `op` (n == 0 launches nothing).
  void launch_elementwise(const std::string& op, cl::Kernel& kernel, std::size_t n, double flops, double bytes);

  // Counts one call of an operation run outside this Blas (a solver's fused kernel) under `op`, with
  // the flops and bytes it moves, timed by the profiling events of its kernels (read when the
  // counters are next asked for; no events: no time).
  void record(const std::string& op, double flops, double bytes, std::vector<cl::Event> events = {});
  // The same for an operation that ran on the host (CG of a small system on a CPU device), with the
  // wall time the caller measured.
  void record_host(const std::string& op, double flops, double bytes, double seconds);

  // Counters since construction or the last reset.
  const std::map<std::string, OpCounters>& counters() const;
  void reset_counters();
  // A table: operation, calls, seconds, share of total, GFLOP/s, GB/s.
  void report(std::ostream& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clkr
