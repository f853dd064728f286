// The iteration log and verdicts shared by every solver core.
#include "solve_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace clkr::detail {

SolveMonitor::SolveMonitor(const SolveOptions& options, double b_norm, SolveResult& result)
    : options_(options),
      criterion_(options.relative_tolerance, options.absolute_tolerance, b_norm),
      result_(result),
      start_(std::chrono::steady_clock::now()),
      recursive_threshold_(criterion_.threshold()) {}

double SolveMonitor::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void SolveMonitor::record(int iteration, double residual_norm) {
  result_.iterations = iteration;
  last_recorded_ = residual_norm;
  result_.recursive_relative_residual = criterion_.relative(residual_norm);
  if (!options_.record_history && !options_.progress) return;
  const IterationRecord record{iteration, result_.recursive_relative_residual, seconds()};
  if (options_.record_history) result_.history.push_back(record);
  if (options_.progress) options_.progress(record);
}

bool SolveMonitor::record_start(const char* name, double value, double residual_norm) {
  if (!check_finite(0, name, value)) return false;
  record(0, residual_norm);
  if (!reached(residual_norm)) return true;
  finish(SolveStatus::Converged, "the initial residual already meets the tolerance");
  return false;
}

void SolveMonitor::forget_iterations() {
  result_.iterations = 0;
  result_.history.clear();
  last_failed_explicit_ = -1;
  recursive_threshold_ = criterion_.threshold();
}

AfterCheck SolveMonitor::check_explicit(int iteration, double explicit_norm) {
  // The explicit residual replaces the recursive one as what the solve reports.
  result_.recursive_relative_residual = criterion_.relative(explicit_norm);
  const std::string where = " at iteration " + std::to_string(iteration);
  if (!std::isfinite(explicit_norm)) {
    finish(SolveStatus::NonFinite, "||b - A x|| = " + format_number(explicit_norm) + where);
    return AfterCheck::Stop;
  }
  if (criterion_.reached(explicit_norm)) {
    finish(SolveStatus::Converged, "||b - A x|| / ||b|| = " + format_number(criterion_.relative(explicit_norm)) +
                                       " reached the tolerance" + where);
    return AfterCheck::Stop;
  }
  // The drift between the recursive and the true residual grows like u * ||A|| * ||x|| per restart,
  // whatever the residual is, so a restart that does not halve the explicit residual's excess over
  // the tolerance has reached the floor this precision allows, and further restarts would only
  // repeat it. (The excess, not the residual: a restart from just above the tolerance cannot halve
  // the residual, and where the floor lies just below the tolerance it still gets there.)
  const double threshold = criterion_.threshold();
  if (last_failed_explicit_ >= 0 && explicit_norm - threshold > 0.5 * (last_failed_explicit_ - threshold)) {
    finish(SolveStatus::Stagnated, "the recursive residual reached the tolerance but ||b - A x|| / ||b|| stays at " +
                                       format_number(criterion_.relative(explicit_norm)) + where +
                                       ": the limit of this precision (try a higher one, or iterative refinement)");
    return AfterCheck::Stop;
  }
  // The next segment must not stop where this one did, once a restart alone has not sufficed: the
  // first restart keeps the threshold, as a fresh residual and direction usually get there within a
  // few iterations (bcsstk25 with the constants: 3.5e-6 at iteration 2898, done at 2900), while
  // aiming lower made that segment long and drift more (to 1.4e-6 and 2.1e-6 after 370 and 870
  // iterations). After a second failed check, taking the drift d as orthogonal to the recursive
  // residual rho (rounding errors, no direction), ||true||^2 = rho^2 + d^2, so the next segment aims
  // at sqrt(threshold^2 - d^2), or at half the threshold where d is larger. Without it a solve whose
  // floor lies just below the tolerance stopped, restarted and stopped again at the same drift
  // (bcsstk25 with smoothed test vectors: 1.6e-8, then 1.2e-8 against 1e-8).
  if (last_failed_explicit_ >= 0) {
    const double drift_squared = std::max(explicit_norm * explicit_norm - last_recorded_ * last_recorded_, 0.0);
    recursive_threshold_ = std::sqrt(std::max(threshold * threshold - drift_squared, 0.25 * threshold * threshold));
  }
  last_failed_explicit_ = explicit_norm;
  return AfterCheck::Restart;
}

bool SolveMonitor::check_finite(int iteration, const char* name, double value) {
  if (std::isfinite(value)) return true;
  finish(SolveStatus::NonFinite,
         std::string(name) + " = " + format_number(value) + " at iteration " + std::to_string(iteration));
  return false;
}

void SolveMonitor::finish(SolveStatus status, std::string message) {
  result_.status = status;
  result_.message = std::move(message);
  finished_ = true;
}

void SolveMonitor::finish_if_running() {
  if (finished_) return;
  finish(SolveStatus::MaxIterations,
         "max_iterations = " + std::to_string(options_.max_iterations) +
             " reached with ||r|| / ||b|| = " + format_number(result_.recursive_relative_residual));
}

}  // namespace clkr::detail
