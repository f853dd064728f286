// true_relative_residual: ||b - A x|| / ||b||, what every solve reports its answer to be worth. Where the
// solve left x on a device with fp64 and A is in any format but SELL, kernels/solver/residual_norms.cl
// computes it there, each row's residual summed error-free in double (about as accurate as the host's
// long double loop), so that no solve reads a matrix of gigabytes back (and keeps a host copy of it) to
// check its answer. Elsewhere (x on the host, SELL, no fp64) the host computes it from host copies. Either way x
// and b are the values to_host() gives: x as the solve's precision holds it, b as the caller gave it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "../precond/any_format_args.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"

namespace clkr {
namespace {

struct SquaredNorms {
  long double residual = 0, rhs = 0;
};

SquaredNorms on_host(Matrix& A, Vector& b, Vector& x) {
  const HostCsrMatrix& host = A.host_csr();
  const std::vector<double> bv = b.to_host();
  const std::vector<double> xv = x.to_host();
  SquaredNorms sums;
  for (std::int32_t i = 0; i < host.rows; ++i) {
    long double r = bv[i];
    for (std::int64_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      r -= static_cast<long double>(host.values[k]) * xv[host.col_indices[k]];
    sums.residual += r * r;
    sums.rhs += static_cast<long double>(bv[i]) * bv[i];
  }
  return sums;
}

// The precision x is current in on the device (the solve's), if any.
std::optional<Precision> device_precision_of(const Vector& x) {
  for (Precision p : {Precision::Double, Precision::QuasiDouble, Precision::Single})
    if (x.is_valid(Location::Device, p)) return p;
  return std::nullopt;
}

bool on_device_applies(const Matrix& A, const Vector& b, const Vector& x) {
  const Context& context = *A.context();
  return A.format() != Format::Sell && context.info().fp64 && b.context().get() == &context &&
         x.context().get() == &context && A.rows() > 0 && device_precision_of(x).has_value();
}

SquaredNorms on_device(Matrix& A, Vector& b, Vector& x) {
  Context& context = *A.context();
  const Precision p = *device_precision_of(x);
  const std::size_t local = std::min<std::size_t>(256, context.info().max_work_group_size);
  const std::size_t rows = static_cast<std::size_t>(A.rows());
  const std::size_t groups =
      std::min<std::size_t>(std::max<std::size_t>(context.info().compute_units, 1) * 4, (rows + local - 1) / local);
  cl::Kernel kernel =
      context.kernel("solver/residual_norms.cl", "residual_norms",
                     precision_build_option(p) + " -DWG=" + std::to_string(local) + offset_build_option(A));
  // b in double: its device copy when it has one, else (a solve in single or quasi-double) its host
  // values in a buffer of this check's own, so that b is left without an extra copy.
  std::vector<double> b_values;
  cl::Buffer b_double;
  if (b.is_valid(Location::Device, Precision::Double)) {
    b_double = b.device(Precision::Double, Access::Read).primary;
  } else {
    b_values = b.to_host();
    b_double = context.allocate(rows * sizeof(double), "true residual b (double)");
    context.queue().enqueueWriteBuffer(b_double, CL_FALSE, 0, rows * sizeof(double), b_values.data());
  }
  cl::Buffer partials = context.allocate(4 * groups * sizeof(cl_double), "true residual partial sums");
  KernelArgs args(kernel, p);
  args.value(static_cast<cl_int>(rows)).value(static_cast<cl_int>(A.cols()));
  detail::add_any_format_or_dia_args(args, A);
  args.vector(x.device(p, Access::Read)).value(b_double);
  args.value(partials);
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local));
  std::vector<double> sums(4 * groups);  // read blocking: b_values is needed until the write is done
  context.queue().enqueueReadBuffer(partials, CL_TRUE, 0, sums.size() * sizeof(double), sums.data());
  SquaredNorms norms;
  for (std::size_t g = 0; g < groups; ++g) {
    norms.residual += static_cast<long double>(sums[4 * g]) + sums[4 * g + 1];
    norms.rhs += static_cast<long double>(sums[4 * g + 2]) + sums[4 * g + 3];
  }
  return norms;
}

}  // namespace

double true_relative_residual(Matrix& A, Vector& b, Vector& x) {
  if (b.size() != static_cast<std::size_t>(A.rows()) || x.size() != static_cast<std::size_t>(A.cols())) {
    throw Error("true_relative_residual: A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                " but b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) + " elements");
  }
  const SquaredNorms sums = on_device_applies(A, b, x)
                                ? translate_cl_errors("true_relative_residual", [&] { return on_device(A, b, x); })
                                : on_host(A, b, x);
  const long double r_norm = std::sqrt(sums.residual), b_norm = std::sqrt(sums.rhs);
  return static_cast<double>(b_norm > 0 ? r_norm / b_norm : r_norm);
}

}  // namespace clkr
