// The stopping criterion of every solver: ||r|| <= max(relative_tolerance * ||b||, absolute_tolerance).
#pragma once

#include <algorithm>

namespace clkr::detail {

class StoppingCriterion {
 public:
  StoppingCriterion(double relative_tolerance, double absolute_tolerance, double b_norm)
      : b_norm_(b_norm), threshold_(std::max(relative_tolerance * b_norm, absolute_tolerance)) {}

  // The residual norm to reach.
  double threshold() const { return threshold_; }
  bool reached(double residual_norm) const { return residual_norm <= threshold_; }
  // ||r|| / ||b||, or ||r|| itself when b = 0 (nothing to be relative to).
  double relative(double residual_norm) const { return b_norm_ > 0 ? residual_norm / b_norm_ : residual_norm; }
  double b_norm() const { return b_norm_; }

 private:
  double b_norm_;
  double threshold_;
};

}  // namespace clkr::detail
