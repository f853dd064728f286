// The host's arithmetic per precision (float, double, quasi-double) and how to reach a Vector's host
// copy in it: what the host reference BLAS1 and the host CG of small systems compute with, so both
// round as the device kernels do (quasi-double operation for operation as kernels/common.cl).
#pragma once

#include <cstddef>
#include <string>

#include "clkr/data/precision.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/runtime/error.hpp"
#include "quasi_double_host.hpp"

namespace clkr::detail {

// A precision's arithmetic and how to reach a Vector's host copy in it.
template <class T>
struct IeeeArith {  // float, double
  using real = T;
  struct View {
    T* data;
    T get(std::ptrdiff_t i) const { return data[i]; }
    void set(std::ptrdiff_t i, T v) const { data[i] = v; }
  };
  static View view(Vector& v, Access access) {
    if constexpr (sizeof(T) == sizeof(float))
      return {v.host_single(access)};
    else
      return {v.host_double(access)};
  }
  static T scalar(double a) { return static_cast<T>(a); }
  static T zero() { return T(0); }
  static T add(T a, T b) { return a + b; }
  static T mul(T a, T b) { return a * b; }
  static T mad(T a, T b, T c) { return a * b + c; }
  static double to_double(T a) { return static_cast<double>(a); }
};

struct QdArith {
  using real = Qd;
  struct View {
    float* hi;
    float* lo;
    Qd get(std::ptrdiff_t i) const { return {hi[i], lo[i]}; }
    void set(std::ptrdiff_t i, Qd v) const {
      hi[i] = v.hi;
      lo[i] = v.lo;
    }
  };
  static View view(Vector& v, Access access) {
    const auto copy = v.host_quasi_double(access);
    return {copy.head, copy.tail};
  }
  static Qd scalar(double a) { return qd_from_double(a); }
  static Qd zero() { return {}; }
  static Qd add(Qd a, Qd b) { return qd_add(a, b); }
  static Qd mul(Qd a, Qd b) { return qd_mul(a, b); }
  static Qd mad(Qd a, Qd b, Qd c) { return qd_add(qd_mul(a, b), c); }
  static double to_double(Qd a) { return qd_to_double(a); }
};

// Runs body(arith) with the arithmetic type of precision p.
template <class Body>
auto with_host_arithmetic(Precision p, Body&& body) {
  switch (p) {
    case Precision::Single:
      return body(IeeeArith<float>{});
    case Precision::QuasiDouble:
      return body(QdArith{});
    case Precision::Double:
      return body(IeeeArith<double>{});
  }
  throw Error("invalid Precision value " + std::to_string(static_cast<int>(p)));
}

}  // namespace clkr::detail
