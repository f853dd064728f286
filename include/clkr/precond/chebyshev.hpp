// clkr::Chebyshev: M^-1 = p(D^-1 A) D^-1, the Chebyshev polynomial of a given degree that is smallest
// on an interval [lower, upper] enclosing the spectrum of D^-1 A (D = diag(A)). For SPD matrices: the
// interval estimate (Lanczos) assumes a symmetric A, and on a nonsymmetric one it can be far too wide
// (use Jacobi or AMG there). Applying it costs
// `degree` SpMVs and elementwise updates, no reduction: it suits GPUs, and it is the smoother of the
// AMG V-cycle. The interval comes from a few Lanczos steps (Jacobi-preconditioned CG on a random
// vector): its largest Ritz value times a safety factor above, a fraction of that (or the smallest
// Ritz value) below.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "clkr/precond/preconditioner.hpp"

namespace clkr {

struct ChebyshevOptions {
  int degree = 4;  // SpMVs per application (>= 1)
  // Lanczos steps for the spectrum estimate (>= 2); 0 bounds the top of the spectrum by Gershgorin's
  // theorem instead (max_i sum_j |a_ij| / a_ii) and needs lower_ratio > 0.
  int eigen_iterations = 20;
  // upper = upper_safety * the largest Ritz value: the polynomial must cover the whole spectrum, and
  // an upper bound below lambda_max would make M indefinite for even degrees.
  double upper_safety = 1.1;
  // lower = lower_ratio * upper when > 0 (a smoother damps only the top of the spectrum: 1/30);
  // 0 = the smallest Ritz value (a preconditioner covers it all).
  double lower_ratio = 0;
  std::uint64_t seed = 1;  // the Lanczos start vector
};

namespace detail {
class ChebyshevRelaxation;
}

class Chebyshev : public Preconditioner {
 public:
  // Throws clkr::Error naming the first row whose diagonal entry is not positive (D^-1 A must have a
  // positive spectrum), and for options out of range. A must outlive the preconditioner (every
  // application multiplies by it).
  // `matrix_values` Half (with precision Single): its SpMVs read A's binary16 values (ValueStorage).
  Chebyshev(const Blas& solver, Matrix& A, ChebyshevOptions options = {},
            std::optional<Precision> precision = std::nullopt, ValueStorage matrix_values = ValueStorage::Working);
  ~Chebyshev() override;

  bool symmetric() const override { return true; }
  PrecondKind kind() const override { return PrecondKind::Chebyshev; }
  std::string description() const override;
  // The interval the polynomial was built for.
  double lower() const;
  double upper() const;

 protected:
  void apply_checked(Vector& r, Vector& z) override;
  void update_values(Matrix& A, PhaseTimes& phases) override;

 private:
  double set_diagonal(Matrix& A);  // inv_diag_ = 1 / diag(A); returns Gershgorin's bound on D^-1 A

  ChebyshevOptions options_;
  Matrix* A_;
  Vector inv_diag_;
  std::unique_ptr<detail::ChebyshevRelaxation> relaxation_;
};

}  // namespace clkr
