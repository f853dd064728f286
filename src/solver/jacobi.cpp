// The Jacobi preconditioner: a host-computed inverse diagonal and one elementwise kernel.
#include "jacobi.hpp"

#include <algorithm>
#include <vector>

#include "clkr/blas/kernel_args.hpp"

namespace clkr::detail {

JacobiPreconditioner::JacobiPreconditioner(Blas& blas, Matrix& A)
    : blas_(blas), inv_diag_(A.context(), static_cast<std::size_t>(A.rows()), "jacobi.inv_diag") {
  std::vector<double> d = A.diagonal();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] <= 0 && first_non_positive_row_ < 0) {
      first_non_positive_row_ = static_cast<std::int32_t>(i);
      first_non_positive_value_ = d[i];
    }
    d[i] = d[i] > 0 ? 1.0 / d[i] : 0.0;
  }
  inv_diag_.assign(d);
  if (blas.location() == Location::Device) {
    kernel_ = blas.context()->kernel("solver/jacobi.cl", "jacobi_apply", precision_build_option(blas.precision()));
  }
}

void JacobiPreconditioner::apply(Vector& r, Vector& z) {
  const std::size_t n = r.size();
  if (n == 0) return;
  if (blas_.location() == Location::Host) {
    // The host reference computes in double and leaves the double copy valid: rounded to single
    // this is the single product exactly (a product of two floats is exact in double); quasi-double
    // gets a product more accurate than the device's.
    const double* d = inv_diag_.host_double(Access::Read);
    const double* rv = r.host_double(Access::Read);
    double* zv = z.host_double(Access::Write);
    for (std::size_t i = 0; i < n; ++i) zv[i] = d[i] * rv[i];
    return;
  }
  const Precision p = blas_.precision();
  KernelArgs(kernel_, p)
      .value(static_cast<cl_int>(n))
      .vector(inv_diag_.device(p, Access::Read))
      .vector(r.device(p, Access::Read))
      .vector(z.device(p, Access::Write));
  Context& context = *blas_.context();
  const std::size_t local = std::min<std::size_t>(blas_.params().blas1.work_group_size,
                                                  std::max<std::size_t>(context.info().max_work_group_size, 1));
  const std::size_t global = (n + local - 1) / local * local;
  context.queue().enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
}

}  // namespace clkr::detail
