// Where the residual of an iteration still in flight will land, extrapolated from the last few: the
// fused device CG keeps two iterations queued (the host reads iteration k's residual while k + 1 runs,
// so the device never idles while the host enqueues), and this tells it when not to queue k + 2
// because k + 1 will probably reach the tolerance. A launch held back wrongly costs the device one
// enqueue's idle time (~0.1 ms); a launch made wrongly costs a whole iteration (with AMG, a V-cycle:
// 3-4 ms on a 16.8 M-row problem on an H200).
#pragma once

#include <cmath>
#include <cstddef>
#include <deque>
#include <limits>

namespace clkr::detail {

class ResidualForecast {
 public:
  // The latest iteration's residual norm (iterations in order).
  void add(double residual_norm) {
    norms_.push_back(residual_norm);
    if (norms_.size() > kWindow + 1) norms_.pop_front();
  }
  // Forgets the history (a restart from a recomputed residual).
  void clear() { norms_.clear(); }

  // The norm `steps` iterations after the latest: the latest times the geometric mean of the ratios
  // over the window (CG's residual norm is not monotone, so one ratio alone misleads), to the power
  // `steps`. Without two usable norms, or where the norm does not fall, +inf (nothing is forecast).
  double ahead(int steps) const {
    const double infinity = std::numeric_limits<double>::infinity();
    if (norms_.size() < 2) return infinity;
    const double first = norms_.front(), last = norms_.back();
    if (!(first > 0) || !(last > 0) || !std::isfinite(first) || !std::isfinite(last) || last >= first) return infinity;
    const double rate = std::pow(last / first, 1.0 / static_cast<double>(norms_.size() - 1));
    return last * std::pow(rate, steps);
  }

 private:
  static constexpr std::size_t kWindow = 4;  // ratios averaged
  std::deque<double> norms_;
};

}  // namespace clkr::detail
