// The host reference BLAS1: one loop per operation, written once over an arithmetic type per
// precision (float, double, quasi-double), parallel with OpenMP when the build has it.
#include "blas1_host.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "../runtime/host_threads.hpp"
#include "clkr/runtime/error.hpp"
#include "host_arithmetic.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace clkr::detail {
namespace {

std::ptrdiff_t length(const Vector& v) { return static_cast<std::ptrdiff_t>(v.size()); }

}  // namespace

void axpy_host(Precision p, double alpha, Vector& x, Vector& y) {
  with_host_arithmetic(p, [&](auto arith) {
    using A = decltype(arith);
    const auto a = A::scalar(alpha);
    const auto xv = A::view(x, Access::Read);
    const auto yv = A::view(y, Access::ReadWrite);
    const std::ptrdiff_t n = length(y);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) yv.set(i, A::mad(a, xv.get(i), yv.get(i)));
  });
}

void aypx_host(Precision p, double alpha, Vector& x, Vector& y) {
  with_host_arithmetic(p, [&](auto arith) {
    using A = decltype(arith);
    const auto a = A::scalar(alpha);
    const auto xv = A::view(x, Access::Read);
    const auto yv = A::view(y, Access::ReadWrite);
    const std::ptrdiff_t n = length(y);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) yv.set(i, A::mad(a, yv.get(i), xv.get(i)));
  });
}

void scal_host(Precision p, double alpha, Vector& x) {
  with_host_arithmetic(p, [&](auto arith) {
    using A = decltype(arith);
    const auto a = A::scalar(alpha);
    const auto xv = A::view(x, Access::ReadWrite);
    const std::ptrdiff_t n = length(x);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) xv.set(i, A::mul(a, xv.get(i)));
  });
}

void copy_host(Precision p, Vector& x, Vector& y) {
  with_host_arithmetic(p, [&](auto arith) {
    using A = decltype(arith);
    const auto xv = A::view(x, Access::Read);
    const auto yv = A::view(y, Access::Write);
    const std::ptrdiff_t n = length(y);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) yv.set(i, xv.get(i));
  });
}

double dot_host(Precision p, Vector& x, Vector& y) {
  return with_host_arithmetic(p, [&](auto arith) {
    using A = decltype(arith);
    using real = typename A::real;
    const auto xv = A::view(x, Access::Read);
    const auto yv = A::view(y, Access::Read);
    const std::ptrdiff_t n = length(x);
    // One partial sum per thread, added in thread order afterwards, so the result does not depend on
    // which thread finishes first.
    std::vector<real> partial(static_cast<std::size_t>(host_thread_count()), A::zero());
#pragma omp parallel
    {
      real sum = A::zero();
#pragma omp for schedule(static) nowait
      for (std::ptrdiff_t i = 0; i < n; ++i) sum = A::mad(xv.get(i), yv.get(i), sum);
#ifdef _OPENMP
      partial[static_cast<std::size_t>(omp_get_thread_num())] = sum;
#else
      partial[0] = sum;
#endif
    }
    real total = A::zero();
    for (const real& s : partial) total = A::add(total, s);
    return A::to_double(total);
  });
}

bool sum_of_squares_is_safe(Precision p, double sum_of_squares) {
  // double: squares below 2^-1022 are lost, and s >= 2^-900 puts them below 2^-122 of s (times n);
  // float arithmetic (single, quasi-double): squares below 2^-126 are lost, s >= 2^-60 puts them below
  // 2^-66 of s, under quasi-double's 2^-48.
  const double smallest = p == Precision::Double ? 0x1p-900 : 0x1p-60;
  return std::isfinite(sum_of_squares) && sum_of_squares >= smallest;
}

double scaled_nrm2(const std::vector<double>& x) {
  double largest = 0;
  for (double v : x) {
    if (std::isnan(v)) return v;
    largest = std::max(largest, std::fabs(v));
  }
  if (largest == 0 || std::isinf(largest)) return largest;
  long double sum = 0;
  for (double v : x) {
    const long double scaled = static_cast<long double>(v) / largest;
    sum += scaled * scaled;
  }
  return static_cast<double>(largest * std::sqrt(sum));
}

}  // namespace clkr::detail
