// Batched CG: k fused CG iterations (cg.cpp's cg_device) run in lockstep on interleaved blocks, the
// matrix read once per iteration for all k columns. Each column keeps cg_device's host logic exactly:
// its scalars are judged one iteration late (the next iteration is already queued unless every
// column's residual forecast says the queued one finishes it), its convergence
// is confirmed on b - A x (restarting from x when the recursive residual drifted), and it then stops
// being updated (masked on the device) while the other columns go on.
#include "batched_cg.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "batched_cg_steps.hpp"
#include "residual_forecast.hpp"
#include "solver_core.hpp"

namespace clkr::detail {
namespace {

struct Column {
  Vector* b = nullptr;
  Vector* x = nullptr;
  std::unique_ptr<SolveMonitor> monitor;
  bool running = false;  // still iterating (not finished at the start, nor since)
  int through = 0;       // the last iteration logged
  double seconds = -1;   // when it finished (monitor clock), -1 while running
  ResidualForecast forecast;
};

class Batch {
 public:
  Batch(Blas& blas, Matrix& A, Jacobi* M, std::vector<Column*> columns, const SolveOptions& options)
      : blas_(blas),
        A_(A),
        M_(M),
        columns_(std::move(columns)),
        options_(options),
        k_(static_cast<int>(columns_.size())),
        n_(static_cast<std::size_t>(A.rows())),
        steps_(blas, A, k_, M ? &M->inverse_diagonal() : nullptr),
        X_(blas.context(), n_ * k_, "bcg.X"),
        R_(blas.context(), n_ * k_, "bcg.R"),
        P_(blas.context(), n_ * k_, "bcg.P"),
        Q_(blas.context(), n_ * k_, "bcg.Q"),
        r_(blas.context(), n_, "bcg.r"),
        x_(blas.context(), n_, "bcg.x"),
        active_(static_cast<std::size_t>(k_), 0) {
    if (M) {
      Z_.emplace(blas.context(), n_ * k_, "bcg.Z");
      z_.emplace(blas.context(), n_, "bcg.z");
    }
  }

  void run();

 private:
  std::pair<double, double> start(int j, Vector& x, bool x_is_zero, bool have_residual);
  void stop(int j);
  void launch();
  void reached(int j, int examined);
  bool in_flight_finishes(int examined) const;

  Blas& blas_;
  Matrix& A_;
  Jacobi* M_;
  std::vector<Column*> columns_;
  const SolveOptions& options_;
  int k_;
  std::size_t n_;
  BatchedCgSteps steps_;
  Vector X_, R_, P_, Q_;  // the n x k blocks; Z_ with Jacobi
  std::optional<Vector> Z_;
  Vector r_, x_;  // one column's residual and solution (starts and confirmations); z_ with Jacobi
  std::optional<Vector> z_;
  std::vector<int> active_;
  int launched_ = 0;
};

// cg_device's start for column j: r = b - A x (unless `have_residual`: r_ holds it); p = r (Jacobi:
// z = M^-1 r, p = z); rho = r'r (r'z) on the device. Returns r'r and rho.
std::pair<double, double> Batch::start(int j, Vector& x, bool x_is_zero, bool have_residual) {
  Column& c = *columns_[j];
  if (!have_residual) compute_residual(blas_, A_, *c.b, x, r_, x_is_zero);
  steps_.set_column(r_, j, R_);
  if (!M_) {
    steps_.set_column(r_, j, P_);
    const DeviceScalar rr = blas_.dot_async(r_, r_);
    steps_.set_rho(j, rr);
    return {rr.value(), rr.value()};
  }
  M_->apply(r_, *z_);
  steps_.set_column(*z_, j, P_);
  const DeviceScalar rz = blas_.dot_async(r_, *z_), rr = blas_.dot_async(r_, r_);
  steps_.set_rho(j, rz);
  return {rr.value(), rz.value()};
}

void Batch::stop(int j) {
  Column& c = *columns_[j];
  c.running = false;
  c.seconds = c.monitor->seconds();
  active_[j] = 0;
}

void Batch::launch() {
  ++launched_;
  steps_.spmm_dot(P_, Q_);                                // Q = A P;  partial p'q per column
  steps_.update_xr(X_, R_, P_, Q_, M_ ? &*Z_ : nullptr);  // X += alpha P;  R -= alpha Q;  (Z = D^-1 R)
  steps_.update_p(M_ ? *Z_ : R_, P_);                     // P = R (Z) + beta P;  rho = r'r (r'z)
  steps_.read_scalars(launched_ % BatchedCgSteps::kReadSlots);
  // Submit now (see cg_device): the device works on this iteration while the host judges the last.
  blas_.context()->queue().flush();
}

// Column j reached the tolerance at iteration `examined` (cg_device's Reached branch): the iteration
// in flight is logged if it did a step, then the residual is confirmed on b - A x.
void Batch::reached(int j, int examined) {
  Column& c = *columns_[j];
  if (launched_ > examined) {
    c.through = examined + 1;
    record_in_flight(*c.monitor, c.through, steps_.wait_scalars(c.through % BatchedCgSteps::kReadSlots)[j]);
  }
  steps_.get_column(X_, j, x_);
  compute_residual(blas_, A_, *c.b, x_, r_, false);
  const double rr = blas_.dot(r_, r_);
  if (c.monitor->check_explicit(c.through, std::sqrt(rr)) == AfterCheck::Stop) return stop(j);
  // The recursive residual drifted: restart this column from x with p = r (M^-1 r) while the others
  // go on; its rho goes to the slot the next step 2 reads.
  c.forecast.clear();
  const auto restart = start(j, x_, false, true);
  if (M_ && !positive_rz(*c.monitor, c.through, restart.second)) stop(j);
}

// cg_device's hold-back, for the batch: the iteration in flight is forecast to take every active
// column to the tolerance, so launching one more would only be wasted work.
bool Batch::in_flight_finishes(int examined) const {
  if (launched_ <= examined) return false;
  for (int j = 0; j < k_; ++j) {
    const Column& c = *columns_[j];
    if (active_[j] && !c.monitor->reached(c.forecast.ahead(launched_ - examined))) return false;
  }
  return true;
}

void Batch::run() {
  for (int j = 0; j < k_; ++j) steps_.set_column(*columns_[j]->x, j, X_);  // x = 0 or the initial guess
  for (int j = 0; j < k_; ++j) {
    Column& c = *columns_[j];
    if (!c.running) continue;
    const auto [rr0, rz0] = start(j, *c.x, !options_.use_initial_guess, false);
    if (cg_device_started(*c.monitor, M_ != nullptr, rr0, rz0)) {
      active_[j] = 1;
    } else {
      stop(j);
    }
  }
  steps_.set_active(active_);

  constexpr int slots = BatchedCgSteps::kReadSlots;
  const int max_iterations = options_.max_iterations;
  int examined = 0;
  auto any_active = [&] { return std::any_of(active_.begin(), active_.end(), [](int a) { return a != 0; }); };
  while (any_active() && (examined < launched_ || launched_ < max_iterations)) {
    if (launched_ < max_iterations && launched_ - examined < slots && !in_flight_finishes(examined)) {
      launch();
      continue;
    }
    ++examined;
    const std::vector<FusedCgSteps::Scalars> scalars = steps_.wait_scalars(examined % slots);
    bool changed = false;
    for (int j = 0; j < k_; ++j) {
      Column& c = *columns_[j];
      // A column restarted after a confirmation has logged this iteration already.
      if (!active_[j] || c.through >= examined) continue;
      c.through = examined;
      const CgVerdict verdict = judge_cg_iteration(*c.monitor, examined, scalars[j], M_ != nullptr);
      if (verdict != CgVerdict::Ended) c.forecast.add(std::sqrt(scalars[j].rr));
      if (verdict == CgVerdict::Continue) continue;
      changed = true;
      if (verdict == CgVerdict::Ended) {
        stop(j);
      } else {
        reached(j, examined);
      }
    }
    // Frozen columns are masked from the next launch on (a restarted one stays active).
    if (changed) steps_.set_active(active_);
  }
  for (int j = 0; j < k_; ++j) steps_.get_column(X_, j, *columns_[j]->x);
}

}  // namespace

std::vector<SolveResult> batched_cg(const char* solver, Blas& blas, Matrix& A, Jacobi* M, std::vector<Vector>& B,
                                    std::vector<Vector>& X, const SolveOptions& options) {
  const std::size_t k = B.size();
  std::vector<SolveResult> results(k);
  std::vector<Column> columns(k);
  // Every column checked (and x zeroed where solve() would) before any iteration.
  for (std::size_t j = 0; j < k; ++j) {
    Column& c = columns[j];
    c.b = &B[j];
    c.x = &X[j];
    const double b_norm = check_and_prepare(solver, blas, A, M, B[j], X[j], options);
    c.monitor = std::make_unique<SolveMonitor>(options, b_norm, results[j]);
    if (b_norm == 0) {
      finish_zero_rhs(*c.monitor);
    } else {
      c.running = true;
    }
  }
  for (std::size_t first = 0; first < k; first += BatchedCgSteps::kMaxColumns) {
    const std::size_t last = std::min(k, first + BatchedCgSteps::kMaxColumns);
    std::vector<Column*> batch;
    bool any_running = false;
    for (std::size_t j = first; j < last; ++j) {
      batch.push_back(&columns[j]);
      any_running = any_running || columns[j].running;
    }
    if (any_running) Batch(blas, A, M, std::move(batch), options).run();
  }
  for (Column& c : columns) {
    c.monitor->finish_if_running();
    const double seconds = c.seconds;
    finish_result(*c.monitor, A, *c.b, *c.x);
    // A column's time is from the start of solve_many to its own end, not to the batch's.
    if (seconds >= 0) c.monitor->result().seconds = seconds;
  }
  return results;
}

}  // namespace clkr::detail
