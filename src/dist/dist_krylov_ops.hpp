// The operations the shared Krylov iterations (src/solver/bicgstab_iteration.hpp, gmres_iteration.hpp)
// and the distributed CGs need, over MPI ranks: DistBlas, DistMatrix, DistVectors and an optional
// block-Jacobi preconditioner. Every reduction is an MPI_Allreduce, so every branch an iteration takes
// on the values it returns is the same on every rank.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../solver/hessenberg_least_squares.hpp"
#include "clkr/dist/dist_blas.hpp"

namespace clkr::detail {

struct DistKrylovOps {
  using Vec = DistVector;
  DistBlas& blas;
  DistMatrix& A;
  Preconditioner* M;  // null: none (dist_solve decided it for every rank alike)
  DistVector& b;
  DistVector& x;

  bool preconditioned() const { return M != nullptr; }
  DistVector vector(const std::string& name) { return DistVector(b.context(), b.communicator(), b.partition(), name); }
  void copy(DistVector& from, DistVector& to) { blas.copy(from, to); }
  void axpy(double a, DistVector& v, DistVector& y) { blas.axpy(a, v, y); }
  void aypx(double a, DistVector& v, DistVector& y) { blas.aypx(a, v, y); }
  void scal(double a, DistVector& v) { blas.scal(a, v); }
  double dot(DistVector& u, DistVector& v) { return blas.dot(u, v); }
  double nrm2(DistVector& v) { return blas.nrm2(v); }
  std::vector<double> dots(const std::vector<std::pair<DistVector*, DistVector*>>& pairs) { return blas.dots(pairs); }
  void multiply(DistVector& v, DistVector& y) { blas.spmv(1.0, A, v, 0.0, y); }  // y = A v
  void precondition(DistVector& r, DistVector& z) { blas.apply(*M, r, z); }      // z = M^-1 r
  // z = M^-1 r, or z = r without a preconditioner (nothing when they are one vector).
  void precondition_or_copy(DistVector& r, DistVector& z) {
    if (M)
      precondition(r, z);
    else if (&r != &z)
      copy(r, z);
  }
  // r = b - A x (r = b when x_is_zero).
  void residual(DistVector& r, bool x_is_zero) {
    blas.copy(b, r);
    if (!x_is_zero) blas.spmv(-1.0, A, x, 1.0, r);
  }
  // Arnoldi step j by classical Gram-Schmidt applied twice (CGS2): h = V'w and w -= V h in one
  // reduction per pass, where modified Gram-Schmidt needs one per basis vector (j + 1 latencies
  // across every rank). Twice MGS's memory traffic for the projections; orthogonality as good as MGS's
  // (Giraud, Langou and Rozloznik 2005).
  void orthogonalize(std::vector<DistVector>& basis, int j, DistVector& w, HessenbergLeastSquares& ls) {
    std::vector<std::pair<DistVector*, DistVector*>> pairs;
    for (int i = 0; i <= j; ++i) pairs.emplace_back(&w, &basis[i]);
    for (int i = 0; i <= j; ++i) ls.h(i, j) = 0;
    for (int pass = 0; pass < 2; ++pass) {
      const std::vector<double> h = blas.dots(pairs);
      for (int i = 0; i <= j; ++i) {
        blas.axpy(-h[i], basis[i], w);
        ls.h(i, j) += h[i];
      }
    }
  }
};

}  // namespace clkr::detail
