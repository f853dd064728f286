// What every solver core reports to while it iterates: the stopping criterion, the iteration log
// (history, progress callback, timing) and the verdict written into the SolveResult.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "../runtime/format_number.hpp"
#include "clkr/precond/preconditioner.hpp"
#include "clkr/solver/options.hpp"
#include "stopping_criterion.hpp"

namespace clkr::detail {

// What an explicit residual check (r = b - A x recomputed once the recursive one reached the
// tolerance) says to do next.
enum class AfterCheck {
  Stop,    // finished: converged, stagnated (no halving since the last failed check) or non-finite
  Restart  // the recursive residual had drifted: restart the iteration from x with the new r
};

class SolveMonitor {
 public:
  // `result` receives iterations, residuals, history and the final status.
  SolveMonitor(const SolveOptions& options, double b_norm, SolveResult& result);

  const StoppingCriterion& criterion() const { return criterion_; }
  // Whether a recursive (or estimated) residual norm is small enough to check explicitly: the
  // tolerance, lowered after a second explicit check in a row found the true residual above it
  // (check_explicit).
  bool reached(double residual_norm) const { return residual_norm <= recursive_threshold_; }
  // That norm (for kernels that compare on the device).
  double recursive_threshold() const { return recursive_threshold_; }

  // The start of an iteration: finishes with NonFinite unless `value` (r'r, ||r||, ... named `name`) is
  // finite, logs iteration 0 with `residual_norm`, and finishes Converged when that meets the
  // tolerance. True when the solve goes on.
  bool record_start(const char* name, double value, double residual_norm);

  // Logs iteration k (0: the initial residual): sets result.iterations and the recursive residual,
  // appends to the history and calls the progress callback when asked to.
  void record(int iteration, double residual_norm);

  // Judges the residual norm recomputed explicitly at `iteration` (see AfterCheck).
  AfterCheck check_explicit(int iteration, double explicit_norm);

  // Finishes with NonFinite (naming the scalar) unless `value` is finite; returns whether it was.
  bool check_finite(int iteration, const char* name, double value);

  // Ends the solve: `status` and the reason in words.
  void finish(SolveStatus status, std::string message);
  // Ends a solve that ran out of iterations, unless it already ended.
  void finish_if_running();
  bool finished() const { return finished_; }

  // At the iterations where SolveOptions::strengthen_check asks for it (strengthen_check, twice it,
  // ...; or the first iteration asked about after one of them; none once strengthened() was called):
  // the evidence of a slow solve to pass to
  // Preconditioner::strengthen, with the iterations still to go forecast from the residual norms
  // logged so far (the rate between the geometric means of two windows of k/8 iterations, ending at
  // k/2 and at k: CG's residual norm is not monotone, and on stiff matrices humps for hundreds of
  // iterations). nullopt elsewhere.
  std::optional<SlowConvergence> slow_convergence(int iteration);
  // The preconditioner, asked with `evidence`, strengthened itself into `description`, taking
  // `seconds`: noted in SolveResult::strengthened; no further asks. (The fused device CG asks after
  // the iteration in flight has finished, so its restart comes one iteration after the ask.)
  void strengthened(const SlowConvergence& evidence, const std::string& description, double seconds);

  // Forgets the iterations logged so far (iterations, history; the clock keeps running): for a solve
  // that starts over from its initial guess on another path (the persistent CG's fallback).
  void forget_iterations();

  double seconds() const;
  // The result being filled (for what a solver adds beyond the common fields).
  SolveResult& result() { return result_; }

 private:
  const SolveOptions& options_;
  StoppingCriterion criterion_;
  SolveResult& result_;
  std::chrono::steady_clock::time_point start_;
  double last_failed_explicit_ = -1;  // the explicit residual norm of the previous failed check
  double recursive_threshold_;        // what reached() asks of a recursive residual
  double last_recorded_ = 0;          // the residual norm of the latest record()
  std::vector<double> log_norms_;     // log of record()'s norms by iteration, for slow_convergence()
  int next_strengthen_check_;         // the next iteration slow_convergence() answers at (0: none)
  bool finished_ = false;
};

}  // namespace clkr::detail
