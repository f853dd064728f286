// The small least-squares problem of GMRES(m): the Hessenberg matrix of one Arnoldi cycle reduced by
// Givens rotations as its columns arrive (shared by the single-device and the distributed GMRES).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace clkr::detail {

// The (m+1) x m upper Hessenberg matrix H of one Arnoldi cycle, reduced to upper triangular R by
// Givens rotations as its columns arrive, and the rotated right-hand side g = Q' (beta e1): |g[j+1]|
// is the residual norm of the least-squares solution after j+1 steps.
class HessenbergLeastSquares {
 public:
  explicit HessenbergLeastSquares(int m) : m_(m), h_((m + 1) * m), c_(m), s_(m), g_(m + 1) {}

  void reset(double beta) {
    std::fill(g_.begin(), g_.end(), 0.0);
    g_[0] = beta;
  }
  double& h(int i, int j) { return h_[static_cast<std::size_t>(j) * (m_ + 1) + i]; }

  // Applies the previous rotations to column j, then the rotation that zeroes h(j+1, j). Returns
  // false when the column is zero (h(j, j) = h(j+1, j) = 0: R would be singular).
  bool rotate_column(int j) {
    for (int i = 0; i < j; ++i) {
      const double t = c_[i] * h(i, j) + s_[i] * h(i + 1, j);
      h(i + 1, j) = -s_[i] * h(i, j) + c_[i] * h(i + 1, j);
      h(i, j) = t;
    }
    const double r = std::hypot(h(j, j), h(j + 1, j));
    if (r == 0) return false;
    c_[j] = h(j, j) / r;
    s_[j] = h(j + 1, j) / r;
    h(j, j) = r;
    h(j + 1, j) = 0;
    g_[j + 1] = -s_[j] * g_[j];
    g_[j] = c_[j] * g_[j];
    return true;
  }
  double residual_norm(int steps) const { return std::abs(g_[steps]); }

  // y solving R y = g over the first `steps` columns (back substitution).
  std::vector<double> solve(int steps) {
    std::vector<double> y(steps);
    for (int i = steps - 1; i >= 0; --i) {
      double sum = g_[i];
      for (int k = i + 1; k < steps; ++k) sum -= h(i, k) * y[k];
      y[i] = sum / h(i, i);
    }
    return y;
  }

 private:
  int m_;
  std::vector<double> h_, c_, s_, g_;
};

}  // namespace clkr::detail
