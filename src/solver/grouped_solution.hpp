// CG's solution updated in groups (van der Vorst and Ye 2000): x += alpha p rounds alpha p to x's
// exponent, and once x is far larger than the step, those lost bits are what separates the recursive
// residual from b - A x. On stiff matrices that gap, not the iteration, sets the attainable accuracy
// (bcsstk25, condition ~1e13: b - A x stalled at 1.2-1.5e-8 against a recursive 1e-8). The steps go
// into a separate sum d, which stays small, and d joins x every kGroup iterations and wherever x is
// read (docs/solvers.md measures it). The fused iteration joins inside its step kernel.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/data/vector.hpp"
#include "solver_core.hpp"

namespace clkr::detail {

class GroupedSolution {
 public:
  // Iterations per group: 8-128 all took bcsstk25's first-segment gap from 4-5e-9 to 0.2-1.3e-9 (the
  // floor u |||A| |x||| / ||b|| is 2.6e-9); each join costs two passes over n, once per 32 iterations.
  static constexpr int kGroup = 32;

  GroupedSolution(Blas& blas, Vector& x) : blas_(blas), x_(x), d_(blas.context(), x.size(), "cg.dx") {
    set_zero(blas_, d_);
  }

  // Where the iteration adds its steps (each followed by after_step).
  Vector& steps() { return d_; }
  // After the step of iteration k (1, 2, ...): d joins x at the end of each group.
  void after_step(int k) {
    pending_ = true;
    if (ends_group(k)) join();
  }
  // The fused iteration joins inside its step kernel instead: where the step of iteration k ends a
  // group it adds d and the step to total() and zeroes d (FusedCgSteps::update_xr's join_into), then
  // calls after_joining_step().
  static bool ends_group(int k) { return k % kGroup == 0; }
  Vector& total() { return x_; }
  void after_joining_step() { pending_ = false; }
  // x with every step so far: x += d, d = 0.
  Vector& joined() {
    join();
    return x_;
  }

 private:
  // Nothing to do without a step since the last join (a solve's start; a restart right after the
  // explicit check that joined; the end after a check).
  void join() {
    if (!pending_) return;
    blas_.axpy(1.0, d_, x_);
    set_zero(blas_, d_);
    pending_ = false;
  }

  Blas& blas_;
  Vector& x_;
  Vector d_;
  bool pending_ = false;  // steps in d since the last join
};

}  // namespace clkr::detail
