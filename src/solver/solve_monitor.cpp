// The iteration log and verdicts shared by every solver core.
#include "solve_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace clkr::detail {

SolveMonitor::SolveMonitor(const SolveOptions& options, double b_norm, SolveResult& result)
    : options_(options),
      criterion_(options.relative_tolerance, options.absolute_tolerance, b_norm),
      result_(result),
      start_(std::chrono::steady_clock::now()),
      recursive_threshold_(criterion_.threshold()),
      next_strengthen_check_(std::max(options.strengthen_check, 0)) {}

double SolveMonitor::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void SolveMonitor::record(int iteration, double residual_norm) {
  result_.iterations = iteration;
  last_recorded_ = residual_norm;
  result_.recursive_relative_residual = criterion_.relative(residual_norm);
  if (next_strengthen_check_ > 0 && iteration >= 0) {
    if (log_norms_.size() <= static_cast<std::size_t>(iteration))
      log_norms_.resize(static_cast<std::size_t>(iteration) + 1, std::log(residual_norm));
    log_norms_[static_cast<std::size_t>(iteration)] = std::log(residual_norm);
  }
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

std::optional<SlowConvergence> SolveMonitor::slow_convergence(int iteration) {
  // At the first iteration asked about from the check on: an iteration that reached the tolerance and
  // restarted is not asked about, and must not leave the checks behind.
  if (next_strengthen_check_ <= 0 || iteration < next_strengthen_check_ ||
      log_norms_.size() <= static_cast<std::size_t>(iteration))
    return std::nullopt;
  next_strengthen_check_ = iteration <= std::numeric_limits<int>::max() / 2 ? 2 * iteration : 0;
  const int half = iteration / 2, window = std::max(iteration / 8, 1);
  auto mean_log = [&](int end) {  // over iterations end - window + 1 .. end
    double sum = 0;
    for (int k = end - window + 1; k <= end; ++k) sum += log_norms_[static_cast<std::size_t>(std::max(k, 0))];
    return sum / window;
  };
  const double earlier = mean_log(half), now = mean_log(iteration);
  const double rate = (now - earlier) / (iteration - half);  // log of the residual's factor per iteration
  SlowConvergence evidence;
  evidence.iterations = iteration;
  evidence.seconds_per_iteration = seconds() / iteration;
  // The windows' means sit at their centres: the residual at `iteration` itself, on that line.
  const double to_go = std::log(criterion_.threshold()) - (now + rate * (window - 1) / 2.0);
  const double infinity = std::numeric_limits<double>::infinity();
  if (!std::isfinite(now))  // a zero residual (log -inf) is done; +inf cannot come (check_finite)
    evidence.forecast_iterations = now < 0 ? 0.0 : infinity;
  else
    evidence.forecast_iterations = rate < 0 ? std::max(to_go / rate, 0.0) : infinity;
  return evidence;
}

void SolveMonitor::strengthened(const SlowConvergence& evidence, const std::string& description, double seconds) {
  next_strengthen_check_ = 0;
  result_.strengthened = "asked at iteration " + std::to_string(evidence.iterations) + ", " +
                         (std::isinf(evidence.forecast_iterations)
                              ? std::string("the residual not yet falling")
                              : format_number(evidence.forecast_iterations) + " more iterations forecast") +
                         ": " + description + ", in " + format_number(seconds) + " s";
}

void SolveMonitor::forget_iterations() {
  result_.iterations = 0;
  result_.history.clear();
  log_norms_.clear();
  next_strengthen_check_ = std::max(options_.strengthen_check, 0);
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
