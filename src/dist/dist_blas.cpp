// clkr::DistBlas: each operation's device work deferred on the communicator, reductions fused.
#include "clkr/dist/dist_blas.hpp"

#include <cmath>

#include "clkr/blas/kernel_args.hpp"

namespace clkr {

DistBlas::DistBlas(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, Precision precision,
                   BlasOptions options)
    : comm_(std::move(comm)), local_(std::move(context), Location::Device, precision, std::move(options)) {}

void DistBlas::axpy(double a, DistVector& x, DistVector& y) {
  comm_->deferred("axpy", [&] { local_.axpy(a, x.local(), y.local()); });
}

void DistBlas::aypx(double a, DistVector& x, DistVector& y) {
  comm_->deferred("aypx", [&] { local_.aypx(a, x.local(), y.local()); });
}

void DistBlas::scal(double a, DistVector& x) {
  comm_->deferred("scal", [&] { local_.scal(a, x.local()); });
}

void DistBlas::copy(DistVector& x, DistVector& y) {
  comm_->deferred("copy", [&] { local_.copy(x.local(), y.local()); });
}

std::vector<double> DistBlas::dots(const std::vector<std::pair<DistVector*, DistVector*>>& pairs) {
  std::vector<double> values(pairs.size(), 0.0);
  comm_->deferred("dot", [&] {
    // Every partial sum is queued before the first is read back: one wait for the device.
    std::vector<DeviceScalar> partial;
    partial.reserve(pairs.size());
    for (const auto& [x, y] : pairs) partial.push_back(local_.dot_async(x->local(), y->local()));
    for (std::size_t i = 0; i < pairs.size(); ++i) values[i] = partial[i].value();
  });
  comm_->allreduce_sum(values);
  return values;
}

double DistBlas::dot(DistVector& x, DistVector& y) { return dots({{&x, &y}})[0]; }

double DistBlas::nrm2(DistVector& x) { return std::sqrt(dot(x, x)); }

void DistBlas::spmv(double alpha, DistMatrix& A, DistVector& x, double beta, DistVector& y) {
  HaloExchange& exchange = A.exchange();
  exchange.start(local_, x.local());
  comm_->deferred("spmv (local block)", [&] {
    local_.spmv(alpha, A.local_block(), x.local(), beta, y.local());
    local_.context()->queue().flush();  // the device works on it while this rank waits for messages
  });
  exchange.finish(A.halo_values());
  const std::size_t rows = A.halo_rows().size();
  if (rows == 0) return;
  comm_->deferred("spmv (halo block)", [&] {
    // t = alpha A_halo h over the rows with halo entries, then y[halo_rows[i]] += t[i].
    local_.spmv(alpha, A.halo_block(), A.halo_values(), 0.0, A.halo_products());
    const Precision p = local_.precision();
    cl::Kernel& kernel = local_.elementwise_kernel("dist/halo.cl", "halo_add");
    KernelArgs(kernel, p)
        .value(cl_ulong{0})
        .value(cl_ulong{0})
        .value(A.halo_rows_buffer())
        .vector(A.halo_products().device(p, Access::Read))
        .vector(y.local().device(p, Access::ReadWrite));
    // Reads a row index, t and y, writes y.
    local_.launch_elementwise("halo_add", kernel, rows, static_cast<double>(rows),
                              static_cast<double>(rows) * (4 + 3 * bytes_per_element(p)));
  });
}

void DistBlas::apply(Preconditioner& M, DistVector& r, DistVector& z) {
  comm_->deferred("preconditioner " + M.description(), [&] { M.apply(r.local(), z.local()); });
}

}  // namespace clkr
