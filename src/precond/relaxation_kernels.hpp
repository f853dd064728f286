// The elementwise updates of kernels/precond/relaxation.cl, run on a preconditioner's Blas (with its
// BLAS1 launch geometry and counters), and their host reference for Location::Host.
#pragma once

#include "clkr/blas/blas.hpp"

namespace clkr::detail {

class RelaxationKernels {
 public:
  explicit RelaxationKernels(Blas& blas) : blas_(blas) {}

  // z = w * dinv .* r (z may not alias r or dinv).
  void scale_by_diagonal(double w, Vector& dinv, Vector& r, Vector& z);
  // x = x + w * dinv .* r
  void add_scaled_by_diagonal(double w, Vector& dinv, Vector& r, Vector& x);
  // d = c1 * d + c2 * dinv .* r;  x = x + d
  void chebyshev_update(double c1, double c2, Vector& dinv, Vector& r, Vector& d, Vector& x);
  // d = c2 * dinv .* r;  x = x + d
  void chebyshev_first(double c2, Vector& dinv, Vector& r, Vector& d, Vector& x);

 private:
  void chebyshev_step(bool first, double c1, double c2, Vector& dinv, Vector& r, Vector& d, Vector& x);

  Blas& blas_;
};

}  // namespace clkr::detail
