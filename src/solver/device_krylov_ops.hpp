// The operations the Krylov iterations written once for one device and for many ranks
// (bicgstab_iteration.hpp, gmres_iteration.hpp) need, on one device: a Blas, a Matrix, Vectors and an
// optional preconditioner. The distributed counterpart is src/dist/dist_krylov_ops.hpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "hessenberg_least_squares.hpp"
#include "solver_core.hpp"

namespace clkr::detail {

struct DeviceKrylovOps {
  using Vec = Vector;
  Blas& blas;
  Matrix& A;
  Preconditioner* M;  // null or an Identity: none
  Vector& b;
  Vector& x;

  bool preconditioned() const { return detail::preconditioned(M); }
  Vector vector(const std::string& name) { return Vector(blas.context(), b.size(), name); }
  void copy(Vector& from, Vector& to) { blas.copy(from, to); }
  void axpy(double a, Vector& v, Vector& y) { blas.axpy(a, v, y); }
  void aypx(double a, Vector& v, Vector& y) { blas.aypx(a, v, y); }
  void scal(double a, Vector& v) { blas.scal(a, v); }
  double dot(Vector& u, Vector& v) { return blas.dot(u, v); }
  double nrm2(Vector& v) { return blas.nrm2(v); }
  // Several dot products queued before the first is read back: one wait for the device.
  std::vector<double> dots(const std::vector<std::pair<Vector*, Vector*>>& pairs) {
    std::vector<DeviceScalar> partial;
    for (const auto& [u, v] : pairs) partial.push_back(blas.dot_async(*u, *v));
    std::vector<double> values;
    for (const DeviceScalar& s : partial) values.push_back(s.value());
    return values;
  }
  void multiply(Vector& v, Vector& y) { blas.spmv(1.0, A, v, 0.0, y); }  // y = A v
  void precondition(Vector& r, Vector& z) { M->apply(r, z); }            // z = M^-1 r
  void residual(Vector& r, bool x_is_zero) { compute_residual(blas, A, b, x, r, x_is_zero); }
  // Arnoldi step j: h(i, j) = (w, v_i) and w -= h(i, j) v_i for i <= j, by modified Gram-Schmidt
  // (gmres.cpp says why MGS on one device).
  void orthogonalize(std::vector<Vector>& basis, int j, Vector& w, HessenbergLeastSquares& ls) {
    for (int i = 0; i <= j; ++i) {
      ls.h(i, j) = blas.dot(w, basis[i]);
      blas.axpy(-ls.h(i, j), basis[i], w);
    }
  }
};

}  // namespace clkr::detail
