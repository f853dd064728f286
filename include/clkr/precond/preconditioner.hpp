// clkr::Preconditioner: the preconditioner level's interface. A solver calls apply(r, z) for
// z = M^-1 r; the preconditioner computes it on its own Blas (same context and location as the
// solver's, in the solver's precision or one it was asked for), so the solver never sees how.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"

namespace clkr {

enum class PrecondKind { None, Jacobi, Chebyshev, Amg };
std::string to_string(PrecondKind kind);  // "none", "jacobi", "chebyshev", "amg"
// Accepts the names above (case-insensitive); throws clkr::Error listing them on anything else.
PrecondKind parse_precond(const std::string& text);

// Where the time of a setup (or an update) went, phase by phase, in the order the phases ran.
using PhaseTimes = std::vector<std::pair<std::string, double>>;
// What the device was asked to do in each phase (launches, waits for it, transfers, allocations:
// Context::command_counts), in the same order and with the same names.
using PhaseCommands = std::vector<std::pair<std::string, CommandCounts>>;

// What a solver tells its preconditioner when it asks it to strengthen itself (Preconditioner::
// strengthen): the evidence that the solve is slow, from which the preconditioner judges whether a
// stronger version pays for its own cost.
struct SlowConvergence {
  int iterations = 0;                // done so far
  double forecast_iterations = 0;    // still to go at the rate so far (+inf: the residual has not fallen)
  double seconds_per_iteration = 0;  // what one has cost so far
};

class Preconditioner {
 public:
  virtual ~Preconditioner();
  Preconditioner(const Preconditioner&) = delete;
  Preconditioner& operator=(const Preconditioner&) = delete;

  // z = M^-1 r. r is only read; z is overwritten (its old values never matter). Both have rows()
  // elements and live on context(); they must be different vectors. The work runs at location() in
  // precision(): on the device z ends valid in precision(), and a solver in another precision reads it
  // through the Vector's conversion (a single-precision preconditioner inside a double solve converts
  // r and z once each; the fused device CG instead stores r's single copy and reads z's in its own
  // kernels); the host backend computes its elementwise updates in double and leaves the host double
  // copy valid.
  void apply(Vector& r, Vector& z);

  // A's values changed on the same sparsity pattern (a new time step): refreshes everything that
  // depends on the values and keeps what depends on the pattern only. `A` must have the pattern the
  // preconditioner was built from (rows and nnz are checked; the rest is the caller's promise).
  void update(Matrix& A);

  // A solver that forecasts a long solve asks M to make itself stronger (SolveOptions::
  // strengthen_check says when CG asks). Returns true when M changed, so that the solver restarts
  // its recursion from x (the Krylov space built with the old M is no longer conjugate); false when M
  // has nothing stronger to offer or judges that it would not pay (the default; an Amg rebuilds on
  // smoothed test vectors: AmgOptions::strengthen_test_vectors). `A` as for update(). A changed M
  // stays changed for later solves: what it costs is paid once.
  bool strengthen(Matrix& A, const SlowConvergence& evidence);

  // True when M is symmetric whenever A is, so that CG may use it (CG reports NotSpd when M turns out
  // not to be positive definite: r'z <= 0).
  virtual bool symmetric() const = 0;
  // True when M^-1 r is not a fixed linear function of r (it changes between applications): such a
  // preconditioner needs a flexible method (FGMRES).
  virtual bool variable() const { return false; }
  virtual PrecondKind kind() const = 0;
  // One line for reports: "amg (smoothed aggregation, 5 levels, chebyshev(2) smoothing, single)".
  virtual std::string description() const = 0;

  std::int32_t rows() const { return rows_; }
  const std::shared_ptr<Context>& context() const { return blas_.context(); }
  Location location() const { return blas_.location(); }
  Precision precision() const { return blas_.precision(); }
  // How its matrices' values are stored for its SpMVs (Half: binary16 values read by single-precision
  // kernels, where they fit; BlasOptions::matrix_values).
  ValueStorage matrix_values() const { return blas_.options().matrix_values; }
  // For reports: "single", "double", ..., or "single, half values".
  std::string precision_description() const;
  // The Blas the preconditioner computes with: its counters hold every application's kernels.
  Blas& blas() { return blas_; }
  const Blas& blas() const { return blas_; }

  // Wall time of the setup (the constructor) and of the latest update(), with their phases.
  double setup_seconds() const { return setup_seconds_; }
  double update_seconds() const { return update_seconds_; }
  const PhaseTimes& setup_phases() const { return setup_phases_; }
  const PhaseTimes& update_phases() const { return update_phases_; }
  // Wall time and phases of the latest strengthen() that changed M (0 and empty before one did).
  double strengthen_seconds() const { return strengthen_seconds_; }
  const PhaseTimes& strengthen_phases() const { return strengthen_phases_; }
  std::uint64_t applications() const { return applications_; }
  // Counts `count` applications that a solver made itself with M's data instead of calling apply()
  // (the host CG of small systems applies Jacobi's inverse diagonal inside its own loop).
  void count_applications(std::uint64_t count) { applications_ += count; }

 protected:
  // Computes on a new Blas with `solver`'s context, location and device parameters, in `precision`
  // (default: solver's precision), its SpMVs reading `matrix_values` (Half needs single precision; on
  // the host backend, which computes from the host CSR, it is Working). Checks that A is square and on
  // solver's context.
  Preconditioner(const Blas& solver, const Matrix& A, std::optional<Precision> precision, const char* name,
                 ValueStorage matrix_values = ValueStorage::Working);

  // z = M^-1 r, operands already checked.
  virtual void apply_checked(Vector& r, Vector& z) = 0;
  // The refresh itself, operands already checked; records its phases in `phases`.
  virtual void update_values(Matrix& A, PhaseTimes& phases) = 0;
  // The strengthening itself, operands already checked; records its phases in `phases` and returns
  // whether M changed. Nothing stronger by default.
  virtual bool strengthen_checked(Matrix& A, const SlowConvergence& evidence, PhaseTimes& phases);

  // Setup bookkeeping for the derived constructors.
  void set_setup_time(double seconds, PhaseTimes phases) {
    setup_seconds_ = seconds;
    setup_phases_ = std::move(phases);
  }
  // "jacobi", "amg": for messages.
  const char* name() const { return name_; }

 private:
  Blas blas_;
  std::int32_t rows_ = 0;
  std::int64_t nnz_ = 0;
  const char* name_;
  // The matrix check of update() and strengthen(): `what` names the call.
  void check_same_pattern(const Matrix& A, const char* what) const;

  double setup_seconds_ = 0, update_seconds_ = 0, strengthen_seconds_ = 0;
  PhaseTimes setup_phases_, update_phases_, strengthen_phases_;
  std::uint64_t applications_ = 0;
};

}  // namespace clkr
