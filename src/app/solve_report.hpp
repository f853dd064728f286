// What one `clkr solve` did and how it is reported: the run's decisions, timings and results, printed
// as the text report (preamble before the solve, result after it) or as one JSON object.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app_common.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/solver/options.hpp"

namespace clkr::app {

struct PrecisionPlan {
  Precision outer;                 // the solver's (IR: the outer loop's) precision
  std::optional<Precision> inner;  // IR only
  std::string label;               // "double", "mixed (double outer, single inner)"
};

struct Verification {
  SolverKind kind;
  SolveResult result;
  double max_relative_difference = 0;
};

// What one `clkr solve` did: the input as decided, the timings, the result and the BLAS objects'
// counters, for the text report and the JSON object.
struct SolveRun {
  std::string matrix;
  MatrixStats stats;
  FormatChoice format;
  bool format_forced = false;
  PrecisionPlan precision;
  bool mixed = false;  // --precision mixed (IR chosen by the precision, not by --solver)
  SolverKind solver = SolverKind::Cg;
  SolveOptions options;
  std::string rhs_label;
  DeviceInfo device;
  Location backend = Location::Device;  // --backend: the device's kernels or the host backend
  double load_seconds = 0, upload_seconds = 0, convert_seconds = 0, setup_seconds = 0;
  SolveResult result;
  double relative_error = std::nan("");  // --rhs Ax only
  std::optional<Verification> verification;
  const Blas* blas = nullptr;               // the solver's (IR: the outer) BLAS
  const Blas* inner = nullptr;              // IR only
  const Preconditioner* precond = nullptr;  // --precond other than none (--solver pcg: jacobi)
  // The preconditioner's kernels before the solve (its counters are reset for the solve's table): the
  // setup's (an AMG built on the device records every setup kernel) and the warm-up's application.
  std::map<std::string, OpCounters> precond_setup_kernels;

  bool refinement() const { return solver == SolverKind::Ir; }
  bool reliable() const { return refinement() && resolved_refinement(options) == RefinementScheme::ReliableUpdate; }
  double inner_tolerance() const {
    return reliable() ? options.reliable_update_delta : options.inner_relative_tolerance;
  }
  double per_iteration() const { return result.iterations > 0 ? result.seconds / result.iterations : 0; }
  double per_inner_iteration() const {
    return result.inner_iterations > 0 ? result.seconds / result.inner_iterations : 0;
  }
  // The preconditioner's setup plus the solve: what a user waits for once the matrix is on the device.
  double time_to_solution() const { return result.seconds + (precond ? precond->setup_seconds() : 0.0); }
  std::string verdict() const {
    return result.converged() ? std::string("converged") : "NOT converged (" + to_string(result.status) + ")";
  }
};

// --history's CSV: iteration,residual,seconds.
void write_history(const std::string& path, const std::vector<IterationRecord>& history);
// The whole run as one JSON object (docs/cli.md lists the keys).
void print_json(std::ostream& out, const SolveRun& run);
// The lines printed before the solve starts (so a long solve shows what it is doing).
void print_preamble(std::ostream& out, const SolveRun& run);
// The outcome, timings, verification and every kernel's counters.
void print_result(std::ostream& out, const SolveRun& run, const ParsedArgs& opts);

}  // namespace clkr::app
