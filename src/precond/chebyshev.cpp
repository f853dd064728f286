// The Chebyshev polynomial preconditioner: one Chebyshev relaxation sweep from zero (relaxation.cpp) on
// the interval estimated at setup.
#include "clkr/precond/chebyshev.hpp"

#include <chrono>
#include <string>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"
#include "diagonal_scan.hpp"
#include "relaxation.hpp"
#include "spectrum.hpp"

namespace clkr {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Chebyshev::Chebyshev(const Blas& solver, Matrix& A, ChebyshevOptions options, std::optional<Precision> precision,
                     ValueStorage matrix_values)
    : Preconditioner(solver, A, precision, "chebyshev", matrix_values),
      options_(options),
      A_(&A),
      inv_diag_(A.context(), static_cast<std::size_t>(A.rows()), "chebyshev.inv_diag") {
  if (options.degree < 1) throw Error("chebyshev: degree = " + std::to_string(options.degree) + " must be >= 1");
  if (options.eigen_iterations != 0 && options.eigen_iterations < 2)
    throw Error("chebyshev: eigen_iterations = " + std::to_string(options.eigen_iterations) +
                " must be 0 (Gershgorin) or >= 2");
  if (!(options.upper_safety >= 1))
    throw Error("chebyshev: upper_safety = " + detail::format_number(options.upper_safety) + " must be >= 1");
  if (!(options.lower_ratio >= 0 && options.lower_ratio < 1))
    throw Error("chebyshev: lower_ratio = " + detail::format_number(options.lower_ratio) + " must lie in [0, 1)");
  const auto start = std::chrono::steady_clock::now();
  const double gershgorin = set_diagonal(A);
  const double diagonal = seconds_since(start);
  const detail::SpectrumPolicy policy{options.eigen_iterations, options.upper_safety, options.seed};
  relaxation_ = std::make_unique<detail::ChebyshevRelaxation>(
      blas(), A, gershgorin, inv_diag_, options.degree, detail::ChebyshevKind::First, options.lower_ratio, policy);
  set_setup_time(seconds_since(start),
                 {{"diagonal", diagonal}, {"spectrum estimate", seconds_since(start) - diagonal}});
}

Chebyshev::~Chebyshev() = default;

double Chebyshev::set_diagonal(Matrix& A) {
  // One pass over the operator (on the device where A is there) gives 1 / diag(A), the first entry
  // that is not positive and finite, and Gershgorin's bound.
  const detail::DiagonalScan scan = detail::scan_diagonal(A, &inv_diag_, blas().location());
  if (scan.first_bad_row >= 0) {
    const std::string row = std::to_string(scan.first_bad_row);
    throw Error("chebyshev: A(" + row + "," + row + ") = " + detail::format_number(scan.bad_value) +
                ": the Chebyshev preconditioner needs a positive diagonal (D^-1 A must have a positive spectrum)");
  }
  return scan.gershgorin;
}

std::string Chebyshev::description() const {
  return "chebyshev (degree " + std::to_string(options_.degree) + " on [" + detail::format_number(lower()) + ", " +
         detail::format_number(upper()) + "], " + precision_description() + ")";
}

double Chebyshev::lower() const { return relaxation_->lower(); }
double Chebyshev::upper() const { return relaxation_->upper(); }

void Chebyshev::apply_checked(Vector& r, Vector& z) { relaxation_->apply(*A_, r, z, true, 1); }

void Chebyshev::update_values(Matrix& A, PhaseTimes& phases) {
  const auto start = std::chrono::steady_clock::now();
  A_ = &A;
  const double gershgorin = set_diagonal(A);
  phases.emplace_back("diagonal", seconds_since(start));
  const auto estimate = std::chrono::steady_clock::now();
  relaxation_->refresh(A, gershgorin);
  phases.emplace_back("spectrum estimate", seconds_since(estimate));
}

}  // namespace clkr
