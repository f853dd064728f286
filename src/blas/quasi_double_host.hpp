// Quasi-double (double-single) arithmetic on the host: kernels/common.cl's qd_* in C++, operation for
// operation, so the host reference backends (BLAS1 and SpMV) agree with the device element for element.
#pragma once

#include <cmath>

// The error-free transformations are exact only when a*b + c is not fused into an fma behind our
// back, and single/double results match the device (built with FP_CONTRACT OFF) only then too.
// g++ contracts by default even in ISO C++ mode once FMA instructions are enabled (-march=native), so
// contraction is switched off for the rest of every file that includes this header.
#if defined(__FAST_MATH__)
#error "clkr's host reference arithmetic must not be built with -ffast-math"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace clkr::detail {

struct Qd {
  float hi = 0;
  float lo = 0;
};

inline Qd qd_from_double(double d) {
  const float hi = static_cast<float>(d);
  return {hi, static_cast<float>(d - static_cast<double>(hi))};
}
inline double qd_to_double(Qd a) { return static_cast<double>(a.hi) + static_cast<double>(a.lo); }

inline Qd qd_two_sum(float a, float b) {
  const float s = a + b;
  const float bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
inline Qd qd_quick_two_sum(float a, float b) {
  const float s = a + b;
  return {s, b - (s - a)};
}
// The error of a float product without an fma: a*b has at most 48 significant bits, so in double it is
// exact, and so is its difference from the rounded p; that difference is the float error term fmaf
// would give. (Built for generic x86-64, std::fma is a library call, which made the host's
// quasi-double loops 1.5x slower than PoCL's vectorized kernels.)
inline Qd qd_two_prod(float a, float b) {
  const double exact = static_cast<double>(a) * static_cast<double>(b);
  const float p = static_cast<float>(exact);
  return {p, static_cast<float>(exact - static_cast<double>(p))};
}
inline Qd qd_add(Qd a, Qd b) {
  Qd s = qd_two_sum(a.hi, b.hi);
  const Qd t = qd_two_sum(a.lo, b.lo);
  s.lo += t.hi;
  s = qd_quick_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return qd_quick_two_sum(s.hi, s.lo);
}
inline Qd qd_mul(Qd a, Qd b) {
  Qd p = qd_two_prod(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return qd_quick_two_sum(p.hi, p.lo);
}

}  // namespace clkr::detail
