// The Jacobi preconditioner: 1 / diag(A) in double, z = inv_diag .* r by one elementwise kernel
// (kernels/precond/relaxation.cl). 1 / diag(A) comes from one pass over the operator on the device
// (kernels/precond/gershgorin.cl) where it can run there; else, and to name a zero or negative
// diagonal entry, from the diagonal the Matrix keeps on the host.
#include "clkr/precond/jacobi.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"
#include "diagonal_scan.hpp"
#include "relaxation_kernels.hpp"

namespace clkr {

Jacobi::Jacobi(const Blas& solver, Matrix& A, std::optional<Precision> precision)
    : Preconditioner(solver, A, precision, "jacobi"),
      inv_diag_(A.context(), static_cast<std::size_t>(A.rows()), "jacobi.inv_diag") {
  const auto start = std::chrono::steady_clock::now();
  set_diagonal(A);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_setup_time(seconds, {{"diagonal", seconds}});
}

Jacobi::Jacobi(const Blas& solver, Matrix& A, const std::vector<double>& diagonal, std::optional<Precision> precision)
    : Preconditioner(solver, A, precision, "jacobi"),
      inv_diag_(A.context(), static_cast<std::size_t>(A.rows()), "jacobi.inv_diag") {
  if (diagonal.size() != static_cast<std::size_t>(A.rows()))
    throw Error("jacobi: " + std::to_string(diagonal.size()) + " diagonal entries given for " +
                std::to_string(A.rows()) + " rows");
  const auto start = std::chrono::steady_clock::now();
  set_diagonal(diagonal);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_setup_time(seconds, {{"diagonal", seconds}});
}

std::string Jacobi::description() const {
  std::string text = "jacobi (" + to_string(precision());
  if (first_negative_row_ >= 0)
    text += "; not SPD: A(" + std::to_string(first_negative_row_) + "," + std::to_string(first_negative_row_) +
            ") = " + detail::format_number(first_negative_value_) + " < 0";
  return text + ")";
}

void Jacobi::set_diagonal(const std::vector<double>& d) {
  std::vector<double> inverse(d.size());
  std::int32_t negative_row = -1;
  double negative_value = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == 0 || !std::isfinite(d[i]))
      throw Error("jacobi: A(" + std::to_string(i) + "," + std::to_string(i) + ") = " + detail::format_number(d[i]) +
                  (d[i] == 0 ? " (zero or not stored)" : "") + ": the Jacobi preconditioner needs a nonzero diagonal");
    if (d[i] < 0 && negative_row < 0) {
      negative_row = static_cast<std::int32_t>(i);
      negative_value = d[i];
    }
    inverse[i] = 1.0 / d[i];
  }
  first_negative_row_ = negative_row;
  first_negative_value_ = negative_value;
  inv_diag_.assign(inverse);
}

void Jacobi::set_diagonal(Matrix& A) {
  // On poisson3d:256 (16.8 M rows) on an H100 the host path took 246 ms (the diagonal copied, inverted
  // on one thread, uploaded); the device pass reads the operator once (~1 ms). A row the scan flags
  // (a_ii <= 0, NaN or Inf) goes through the host path, which refuses zero and non-finite entries and
  // records the first negative one, as before.
  if (detail::diagonal_scan_on_device(A, blas().location()) &&
      detail::scan_diagonal(A, &inv_diag_, Location::Device).first_bad_row < 0) {
    first_negative_row_ = -1;
    first_negative_value_ = 0;
    return;
  }
  set_diagonal(A.diagonal());
}

void Jacobi::apply_checked(Vector& r, Vector& z) {
  detail::RelaxationKernels(blas()).scale_by_diagonal(1.0, inv_diag_, r, z);
}

void Jacobi::update_values(Matrix& A, PhaseTimes& phases) {
  const auto start = std::chrono::steady_clock::now();
  set_diagonal(A);
  phases.emplace_back("diagonal", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace clkr
