// The Jacobi (diagonal) preconditioner M = diag(A) for PCG: z = M^-1 r.
#pragma once

#include <cstdint>

#include "clkr/blas/blas.hpp"

namespace clkr::detail {

class JacobiPreconditioner {
 public:
  // Computes inv_diag = 1 / diag(A) on the host in double (applied in blas.precision()).
  JacobiPreconditioner(Blas& blas, Matrix& A);

  // Where the diagonal is not positive (M would not be SPD): the first such row, or -1.
  std::int32_t first_non_positive_row() const { return first_non_positive_row_; }
  double first_non_positive_value() const { return first_non_positive_value_; }

  // z = M^-1 r in blas.precision(): every element of z is written, r is read (n elements each,
  // plus n of inv_diag: 3n moved).
  void apply(Vector& r, Vector& z);

 private:
  Blas& blas_;
  Vector inv_diag_;
  cl::Kernel kernel_;  // device backend only
  std::int32_t first_non_positive_row_ = -1;
  double first_non_positive_value_ = 0;
};

}  // namespace clkr::detail
