// clkr::Jacobi: M = diag(A), applied as z = inv_diag .* r with inv_diag = 1 / a_ii computed once in
// double (on the device where A is there, else on the host) and stored in the preconditioner's precision.
#pragma once

#include <cstdint>
#include <optional>

#include "clkr/precond/preconditioner.hpp"

namespace clkr {

class Jacobi : public Preconditioner {
 public:
  // Throws clkr::Error naming the first row whose diagonal entry is zero or missing (M would be
  // singular) or not finite. A negative entry is accepted (Jacobi is a valid preconditioner for GMRES
  // and BiCGStab); M is then symmetric but not positive definite, which CG reports as NotSpd when it
  // meets r'z <= 0 or p'Ap <= 0 (first_negative_row() names the row up front).
  Jacobi(const Blas& solver, Matrix& A, std::optional<Precision> precision = std::nullopt);
  // The same from A's diagonal already at hand (A.diagonal(): a solver that checked it, a smoother).
  Jacobi(const Blas& solver, Matrix& A, const std::vector<double>& diagonal,
         std::optional<Precision> precision = std::nullopt);

  bool symmetric() const override { return true; }
  PrecondKind kind() const override { return PrecondKind::Jacobi; }
  std::string description() const override;
  // The first row with a_ii < 0, or -1.
  std::int32_t first_negative_row() const { return first_negative_row_; }
  double first_negative_value() const { return first_negative_value_; }
  // 1 / diag(A) in the preconditioner's precision (for smoothers built on it).
  Vector& inverse_diagonal() { return inv_diag_; }

 protected:
  void apply_checked(Vector& r, Vector& z) override;
  void update_values(Matrix& A, PhaseTimes& phases) override;

 private:
  void set_diagonal(Matrix& A);  // on the device where it can
  void set_diagonal(const std::vector<double>& diagonal);

  Vector inv_diag_;
  std::int32_t first_negative_row_ = -1;
  double first_negative_value_ = 0;
};

}  // namespace clkr
