// The preconditioner level's shared part: the kind names, the operand checks every application goes
// through, update() timing, and make_preconditioner.
#include "clkr/precond/preconditioner.hpp"

#include <chrono>
#include <string>
#include <utility>

#include "../runtime/enum_names.hpp"
#include "../runtime/text.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {

namespace {

const std::pair<PrecondKind, const char*> kPrecondNames[] = {
    {PrecondKind::None, "none"},
    {PrecondKind::Jacobi, "jacobi"},
    {PrecondKind::Chebyshev, "chebyshev"},
    {PrecondKind::Amg, "amg"},
};

BlasOptions options_like(const Blas& solver, ValueStorage matrix_values) {
  BlasOptions options;
  options.params = solver.params();
  if (solver.location() == Location::Device) options.matrix_values = matrix_values;
  return options;
}

}  // namespace

std::string to_string(PrecondKind kind) { return detail::enum_name(kPrecondNames, kind, "PrecondKind"); }

PrecondKind parse_precond(const std::string& text) {
  return detail::parse_enum_name(kPrecondNames, text, "preconditioner");
}

Preconditioner::Preconditioner(const Blas& solver, const Matrix& A, std::optional<Precision> precision,
                               const char* name, ValueStorage matrix_values)
    : blas_(solver.context(), solver.location(), precision.value_or(solver.precision()),
            options_like(solver, matrix_values)),
      rows_(A.rows()),
      nnz_(A.nnz()),
      name_(name) {
  if (A.rows() != A.cols())
    throw Error(std::string(name) + ": the matrix is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                ", not square");
  if (A.context() != solver.context())
    throw Error(std::string(name) + ": the matrix and the solver's Blas live on different contexts");
}

Preconditioner::~Preconditioner() = default;

std::string Preconditioner::precision_description() const {
  return to_string(precision()) + (matrix_values() == ValueStorage::Half ? ", half values" : "");
}

void Preconditioner::apply(Vector& r, Vector& z) {
  const std::string who = std::string(name_) + " preconditioner: ";
  if (r.size() != static_cast<std::size_t>(rows_) || z.size() != static_cast<std::size_t>(rows_))
    throw Error(who + "r has " + std::to_string(r.size()) + " and z " + std::to_string(z.size()) +
                " elements; the matrix has " + std::to_string(rows_) + " rows");
  if (&r == &z) throw Error(who + "r and z must be different vectors");
  if (r.context() != context() || z.context() != context())
    throw Error(who + "r and z must live on the preconditioner's context");
  translate_cl_errors(name_, [&] { apply_checked(r, z); });
  ++applications_;
}

void Preconditioner::check_same_pattern(const Matrix& A, const char* what) const {
  if (A.rows() != rows_ || A.cols() != rows_ || A.nnz() != nnz_)
    throw Error(std::string(name_) + " preconditioner: " + what + " with a " + std::to_string(A.rows()) + " x " +
                std::to_string(A.cols()) + " matrix of nnz " + std::to_string(A.nnz()) + ", but it was built for " +
                std::to_string(rows_) + " rows and nnz " + std::to_string(nnz_) +
                " (a new pattern needs a new preconditioner)");
  if (A.context() != context())
    throw Error(std::string(name_) + " preconditioner: " + what + " with a matrix on another context");
}

void Preconditioner::update(Matrix& A) {
  check_same_pattern(A, "update");
  const auto start = std::chrono::steady_clock::now();
  update_phases_.clear();
  translate_cl_errors(name_, [&] { update_values(A, update_phases_); });
  update_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool Preconditioner::strengthen(Matrix& A, const SlowConvergence& evidence) {
  check_same_pattern(A, "strengthen");
  const auto start = std::chrono::steady_clock::now();
  PhaseTimes phases;
  const bool changed = translate_cl_errors(name_, [&] { return strengthen_checked(A, evidence, phases); });
  if (changed) {
    strengthen_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    strengthen_phases_ = std::move(phases);
  }
  return changed;
}

bool Preconditioner::strengthen_checked(Matrix&, const SlowConvergence&, PhaseTimes&) { return false; }

void set_precond_precision(PrecondOptions& options, const std::string& text) {
  const std::string name = detail::to_lower(text);
  if (name == "half") {
    options.precision = Precision::Single;
    options.matrix_values = ValueStorage::Half;
    return;
  }
  try {
    options.precision = parse_precision(text);
  } catch (const Error&) {
    throw Error("unknown preconditioner precision '" + text +
                "' (expected single, qdouble, double, or half: single arithmetic on binary16 matrix values)");
  }
  options.matrix_values = ValueStorage::Working;
}

std::unique_ptr<Preconditioner> make_preconditioner(const Blas& solver, Matrix& A, const PrecondOptions& options) {
  // A failing OpenCL call in a setup is a clkr::Error naming the setup, as in a solve.
  return translate_cl_errors(
      ("the " + to_string(options.kind) + " setup").c_str(), [&]() -> std::unique_ptr<Preconditioner> {
        switch (options.kind) {
          case PrecondKind::None:
            return std::make_unique<Identity>(solver, A);
          case PrecondKind::Jacobi:
            return std::make_unique<Jacobi>(solver, A, options.precision);
          case PrecondKind::Chebyshev:
            return std::make_unique<Chebyshev>(solver, A, options.chebyshev, options.precision, options.matrix_values);
          case PrecondKind::Amg:
            return std::make_unique<Amg>(solver, A, options.amg, options.precision, options.matrix_values);
        }
        throw Error("make_preconditioner: unknown PrecondKind " + std::to_string(static_cast<int>(options.kind)));
      });
}

}  // namespace clkr
