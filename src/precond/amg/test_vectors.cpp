// Smoothed test vectors: `steps` iterations of preconditioned CG on A x = A e0 from x = 0, whose error
// e0 - x is the vector (test_vectors.hpp says why).
#include "test_vectors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "../../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {

std::vector<std::vector<double>> smoothed_test_vectors(Blas& blas, Matrix& A, const CycleApply& apply, int count,
                                                       int steps) {
  const auto n = static_cast<std::size_t>(A.rows());
  const auto& context = blas.context();
  const std::vector<double> zeros(n, 0.0);
  Vector b(context, n, "amg.test.b"), x(context, n, "amg.test.x"), r(context, n, "amg.test.r"),
      z(context, n, "amg.test.z"), p(context, n, "amg.test.p"), q(context, n, "amg.test.q");
  std::vector<std::vector<double>> vectors;
  vectors.reserve(static_cast<std::size_t>(count));
  for (int c = 0; c < count; ++c) {
    std::mt19937_64 random(0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(c));
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<double> start(n);
    for (double& v : start) v = uniform(random);
    Vector e0(context, start, "amg.test.e0");
    // b = A e0, x = 0: CG's error after k steps is e0 - x_k = p_k(M^-1 A) e0.
    blas.spmv(1.0, A, e0, 0.0, b);
    blas.copy(b, r);
    x.assign(zeros);
    apply(r, z);
    blas.copy(z, p);
    // A NaN or Inf scalar means the matrix or the first hierarchy produced one: refused, not a random
    // start returned as if it were smooth.
    auto finite = [c](const char* name, double value) {
      if (!std::isfinite(value))
        throw Error("amg: smoothed test vector " + std::to_string(c) + ": " + name + " = " + format_number(value) +
                    " in the first hierarchy's CG steps (is A finite and SPD?)");
      return value;
    };
    double rz = finite("r'z", blas.dot(r, z));
    const double rz_start = rz;
    for (int k = 0; k < steps && rz > 1e-12 * rz_start; ++k) {
      blas.spmv(1.0, A, p, 0.0, q);
      const double pq = finite("p'Ap", blas.dot(p, q));
      if (!(pq > 0)) break;  // A or M not SPD along p: the error so far is the vector
      const double alpha = rz / pq;
      blas.axpy(alpha, p, x);
      blas.axpy(-alpha, q, r);
      apply(r, z);
      const double rz_new = finite("r'z", blas.dot(r, z));
      if (!(rz_new > 0)) break;
      blas.aypx(rz_new / rz, z, p);
      rz = rz_new;
    }
    std::vector<double> e = x.to_host();
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      e[i] = start[i] - e[i];
      largest = std::max(largest, std::abs(e[i]));
    }
    if (!std::isfinite(largest) || largest == 0)
      throw Error("amg: smoothed test vector " + std::to_string(c) + " is " +
                  (largest == 0 ? std::string("zero") : std::string("not finite")) +
                  " after the first hierarchy's CG steps (the matrix or its first hierarchy is not SPD?)");
    for (double& v : e) v /= largest;
    vectors.push_back(std::move(e));
  }
  return vectors;
}

bool test_vectors_pay(const SlowConvergence& evidence, int vectors, int steps, double setup_seconds) {
  if (std::isinf(evidence.forecast_iterations)) return true;
  const double t = evidence.seconds_per_iteration;
  const double saving = 0.25 * evidence.forecast_iterations * t;
  const double cost = static_cast<double>(vectors) * steps * t + 2 * setup_seconds;
  return saving > cost;
}

}  // namespace clkr::detail::amg
