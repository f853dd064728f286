// A solver chosen by name and prepared once for many solves on one matrix: what the C API's clkr_solver,
// the Fortran module's clkr_solver and Python's clkr.Solver are. The choice (solver, preconditioner,
// precision, tolerances, and "key=value" settings for the preconditioners' own options and iterative
// refinement's) is checked into a SolverPlan; SolverSetup builds the preconditioner once, refreshes it
// after new matrix values (a time step), and solves one or several right-hand sides on it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/solver/options.hpp"

namespace clkr {

using Setting = std::pair<std::string, std::string>;  // key, value

// The names and numbers an interface passes, before they are checked.
struct SolverChoice {
  std::string solver = "cg";            // cg, pcg (CG with Jacobi), gmres, fgmres, bicgstab
  std::string preconditioner = "none";  // none, jacobi, chebyshev, amg
  // auto (double, or quasi-double on a device without fp64), single, qdouble, double, or mixed:
  // iterative refinement, double outside (quasi-double on a device without fp64) and single inside,
  // the solver above solving the corrections (CG: reliable-update CG, one Krylov space throughout),
  // with the preconditioner inside, in single (or half) precision.
  std::string precision = "auto";
  // device (the context's OpenCL device) or host: the host backend, OpenMP on this machine's cores with
  // the matrix in CSR on the host (read back once from the device if it was uploaded only), the faster
  // AMG path on CPUs and the only one with the gauss-seidel smoother.
  std::string backend = "device";
  double relative_tolerance = 1e-8;
  int max_iterations = 10000;
  int restart = 30;
  std::vector<Setting> settings;  // solver_setting_keys() lists the keys
  // AMG's near-null space (AmgOptions::near_null_space): vectors of rows(A) elements; empty: the default.
  std::vector<std::vector<double>> near_null_space;
  // AMG's nodes of different sizes (AmgOptions::node_offsets, 0-based); empty: block_size's nodes.
  std::vector<std::int32_t> node_offsets;
};

// What a SolverChoice means, checked.
struct SolverPlan {
  SolverKind kind = SolverKind::Cg;  // never Pcg (that is Cg with Jacobi); Ir for precision "mixed"
  PrecondOptions precond;
  Precision precision = Precision::Double;  // iterative refinement: the outer precision
  Location backend = Location::Device;      // where the Blas computes: the device or the host backend
  SolveOptions options;
};

// Checks `choice` for a device (whether it has fp64 decides mixed's outer precision) and refuses with
// clkr::Error naming the field, prefixed by `field_prefix` ("options." in C): an unknown name (with the
// known ones), a tolerance outside (0, 1), counts below 1, an unknown setting key (with the known ones),
// a setting for another preconditioner or without iterative refinement, a value of the wrong type, a
// preconditioner other than Jacobi with solver pcg, a preconditioner precision other than the inner one
// with precision mixed, a near-null space without AMG, an unknown backend, cg.path on the host backend.
SolverPlan plan_solver(const SolverChoice& choice, const DeviceInfo& device, const std::string& field_prefix = "");

// "amg.coarse_size=100, amg.smoother=jacobi; chebyshev.degree=6" as key/value pairs (separated by
// commas, semicolons or white space); throws clkr::Error for a pair without '='.
std::vector<Setting> parse_settings(const std::string& text);

// Every setting key with what it sets, as "key: meaning" lines, for documentation and error messages.
std::vector<std::string> solver_setting_keys();

class SolverSetup {
 public:
  // Builds the preconditioner for A; A is shared and kept alive by the setup.
  SolverSetup(std::shared_ptr<Matrix> A, SolverPlan plan);
  ~SolverSetup();
  SolverSetup(const SolverSetup&) = delete;
  SolverSetup& operator=(const SolverSetup&) = delete;

  // After A.update_values(): the preconditioner follows the new values (the AMG keeps its hierarchy).
  void update();
  // Solves A X[j] = B[j] for every column on this setup (solve_many); X[j] starts from its values with
  // use_initial_guess, else from zero.
  std::vector<SolveResult> solve(std::vector<Vector>& B, std::vector<Vector>& X, bool use_initial_guess);

  const std::shared_ptr<Matrix>& matrix() const { return matrix_; }
  const SolverPlan& plan() const { return plan_; }
  double setup_seconds() const { return setup_seconds_; }
  // "cg with AMG (...) in double on <device>"
  std::string description() const;

 private:
  std::shared_ptr<Matrix> matrix_;
  SolverPlan plan_;
  std::unique_ptr<Blas> blas_;
  std::unique_ptr<Preconditioner> preconditioner_;  // null for none
  double setup_seconds_ = 0;
};

}  // namespace clkr
