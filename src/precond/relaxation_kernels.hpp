// The elementwise updates of kernels/precond/relaxation.cl, run on a preconditioner's Blas (with its
// BLAS1 launch geometry and counters), and their host reference for Location::Host.
#pragma once

#include "../blas/spmv.hpp"
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
  // d = c2 * dinv .* b;  x = d (a first step from x = 0, whose residual is b: x is not read)
  void chebyshev_start(double c2, Vector& dinv, Vector& b, Vector& d, Vector& x);

  // ---- SpMVs with the update fused into the kernel (spmv.hpp's SpmvEpilogue; the unfused sequence where
  // A's format takes no epilogue) ----
  // r = b - A x (r may be b; it may not be x)
  void residual(Matrix& A, Vector& b, Vector& x, Vector& r);
  // r = b - A x and d = c2 dinv .* r: a Chebyshev sweep's first step from a nonzero x without its
  // x += d, which the next step adds (chebyshev_spmv_step with Pending::Add), so x is read and written
  // once less. d must differ from x, r, b and dinv.
  void residual_and_correction(Matrix& A, Vector& b, Vector& x, Vector& r, double c2, Vector& dinv, Vector& d);
  // A Chebyshev step after the first: r = r_in - A d, d_next = c1 d + c2 dinv .* r, x += d_next. With
  // `last` (the sweep's last step) r and d_next are not written. r_in may be r; d_next must differ from d.
  // `pending`: d itself is not yet in x: Add, x += d + d_next; Set, x = d + d_next (x not read).
  void chebyshev_spmv_step(Matrix& A, double c1, double c2, Vector& dinv, Vector& r_in, Vector& d, Vector& r,
                           Vector& d_next, Vector& x, bool last,
                           SpmvEpilogue::Pending pending = SpmvEpilogue::Pending::None);
  // A correction from the inverse node blocks B applied to the residual r, in one SpMV of B:
  // d_out = c1 d_prev + c2 B r (c2 B r without d_prev; d_prev may be d_out), then x += d_out, or
  // x = d_out with set_x (x's old values not read).
  void node_block_correction(Matrix& B, Vector& r, double c1, double c2, Vector* d_prev, Vector& d_out, Vector& x,
                             bool set_x);

 private:
  void diagonal_step(bool accumulate, double w, Vector& dinv, Vector& r, Vector& out);
  void chebyshev_step(bool first, double c1, double c2, Vector& dinv, Vector& r, Vector& d, Vector& x);

  Blas& blas_;
};

}  // namespace clkr::detail
