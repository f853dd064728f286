// The device path of CG: three fused kernels per iteration (kernels/solver/cg.cl) with alpha, beta and
// rho kept on the device, and r'r read back without draining the queue.
#pragma once

#include <array>
#include <cstdint>

#include "clkr/blas/blas.hpp"
#include "clkr/solver/options.hpp"

namespace clkr::detail {

class FusedCgSteps {
 public:
  // Only for blas.location() == Device; any format and precision (formats without a fused SpMV kernel
  // run the Blas SpMV followed by a p'q partial-sum kernel).
  FusedCgSteps(Blas& blas, Matrix& A);

  // rho = r'r of the starting residual, from the Blas's own reduction.
  void set_rho(const DeviceScalar& rr);
  // q = A p and the partial sums of p'q.
  void spmv_dot(Vector& p, Vector& q);
  // alpha = rho / p'q; x += alpha p; r -= alpha q; partial sums of r'r.
  void update_xr(Vector& x, Vector& r, Vector& p, Vector& q);
  // beta = r'r / rho; p = r + beta p; rho = r'r.
  void update_p(Vector& r, Vector& p);

  // The scalars after the latest update_p, read without blocking: r'r (the new rho) and p'q.
  struct Scalars {
    double rr = 0, pq = 0;
  };
  class PendingRead {
   public:
    Scalars wait();  // blocks until the read has completed
   private:
    friend class FusedCgSteps;
    cl::Event event_;
    std::array<double, 3> storage_{};  // room for three reals of any precision
    Precision precision_ = Precision::Double;
    int rho_slot_ = 0;
  };
  // `read` must stay alive (and unmoved) until wait() returns.
  void read_scalars(PendingRead& read);

 private:
  Blas& blas_;
  Matrix& A_;
  Precision precision_;
  std::size_t n_;
  bool chunked_;           // CPUs: contiguous chunks; GPUs: grid-stride
  std::size_t local_ = 0;  // work-group size (the kernels' WG)
  std::size_t groups_ = 0;
  int chunk_ = 0;
  enum class Step1 { CsrFused, EllFused, SpmvThenDot } step1_;
  cl::Kernel spmv_dot_, dot_partials_, update_xr_, update_p_;
  Vector pq_partials_, rr_partials_, scalars_;
  int rho_slot_ = 0;  // which of scalars_[0], scalars_[1] holds the current rho
};

}  // namespace clkr::detail
