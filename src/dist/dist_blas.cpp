// clkr::DistBlas: each operation's device work deferred on the communicator, reductions fused.
#include "clkr/dist/dist_blas.hpp"

#include <cmath>

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
  if (A.halo_pattern().halo_size() > 0)
    comm_->deferred("spmv (halo block)", [&] { local_.spmv(alpha, A.halo_block(), A.halo_values(), 1.0, y.local()); });
}

void DistBlas::apply(Preconditioner& M, DistVector& r, DistVector& z) {
  comm_->deferred("preconditioner " + M.description(), [&] { M.apply(r.local(), z.local()); });
}

}  // namespace clkr
