// Shared by the data, BLAS, preconditioner and solver tests: what a test does on a device without fp64
// (a real one, or any device under CLKR_HIDE_FP64=1, which is how CI runs this path on PoCL).
//
// - A test that needs double on the device skips there, with the reason, through
//   CLKR_SKIP_UNLESS_AVAILABLE: double on such a device is a clkr::Error by design (tested on its own in
//   tests/solver/no_fp64_test.cpp), not something each test should fail on.
// - A test that compares a double read back from the device bit for bit with its input compares at
//   readback_tolerance() instead: without fp64 the device holds quasi-double (a float head and a float
//   tail, 48 significant bits), so a read-back is the input to 2^-48 relative, not exactly. With fp64
//   the tolerance stays 0: the check is as strict as before there.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"
#include "gtest/gtest.h"

namespace clkr::test {

// Sets an environment variable (nullptr: unsets it) for the lifetime of the object, then puts back
// what was there; programs the test starts inherit it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ScopedEnv(const char* name, const std::string& value) : ScopedEnv(name, value.c_str()) {}
  ~ScopedEnv() {
    if (saved_)
      ::setenv(name_, saved_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// Whether vectors and BLAS in `precision` can live on the device of `context`.
inline bool device_supports(const Context& context, Precision precision) {
  return precision != Precision::Double || context.info().fp64;
}

inline std::string unsupported_reason(const Context& context, Precision precision) {
  return std::string(to_string(precision)) + " on the device needs fp64, which " + context.info().summary() +
         " lacks (or CLKR_HIDE_FP64=1 hides)";
}

// Double where the device has fp64, else quasi-double: for tests of behaviour that does not depend on
// double's 53 bits (refusals, zero right-hand sides, histories, not-SPD detection, iteration limits), so
// they run on the no-fp64 path too. Quasi-double keeps float's exponent range: their values stay inside it.
inline Precision widest_device_precision(const Context& context) {
  return context.info().fp64 ? Precision::Double : Precision::QuasiDouble;
}

// The relative difference a double read back from the device may have from what was written: 0 with
// fp64; on a device without it, the quasi-double split (a float head, a float tail: 2^-48 relative),
// with a factor 4 for the rounding of the head and of the tail each.
inline double readback_tolerance(const Context& context) { return context.info().fp64 ? 0.0 : std::ldexp(1.0, -46); }

// |a - b| <= readback_tolerance * |b|: exact equality on a device with fp64. Values whose tail
// underflows float's range (|b| < ~1e-38 * 2^24) are compared with float's smallest normal as the floor.
inline bool readback_equal(const Context& context, double a, double b) {
  if (context.info().fp64) return a == b || (std::isnan(a) && std::isnan(b));
  return std::abs(a - b) <= readback_tolerance(context) * std::abs(b) + 0x1p-126;
}

// `got` is the CSR matrix `want`: its shape, pattern and values. The values bit for bit where no
// `context` is given (a file written and read back, a host copy) or the context has fp64; read back
// from a device without fp64, to readback_tolerance() (readback_equal).
inline void expect_same_csr(const HostCsrMatrix& got, const HostCsrMatrix& want, const std::string& what,
                            const Context* context = nullptr) {
  EXPECT_EQ(got.rows, want.rows) << what;
  EXPECT_EQ(got.cols, want.cols) << what;
  EXPECT_EQ(got.row_offsets, want.row_offsets) << what;
  EXPECT_EQ(got.col_indices, want.col_indices) << what;
  ASSERT_EQ(got.values.size(), want.values.size()) << what;
  const bool exact = context == nullptr || context->info().fp64;
  for (std::size_t k = 0; k < got.values.size(); ++k) {
    const bool same = exact ? std::memcmp(&got.values[k], &want.values[k], sizeof(double)) == 0
                            : readback_equal(*context, got.values[k], want.values[k]);
    ASSERT_TRUE(same) << what << ": value " << k << " is " << got.values[k] << ", expected " << want.values[k];
  }
}

// ---- binary16, as ValueStorage::Half stores matrix values ---------------------------------------------

// v rounded to the nearest IEEE binary16 number, ties to even, as the kernels' vstore_half_rte does
// (subnormal below 2^-14; |v| must stay below 65520, which rounds to infinity).
inline double round_to_half(float v) {
  if (v == 0) return v;
  int binade = 0;
  std::frexp(static_cast<double>(v), &binade);                             // |v| in [2^(binade - 1), 2^binade)
  const double quantum = std::ldexp(1.0, std::max(binade - 1, -14) - 10);  // 11 bits, or the subnormal step
  return std::nearbyint(static_cast<double>(v) / quantum) * quantum;       // ties to even (FE_TONEAREST)
}

// The value of binary16 bits h (finite ones).
inline double half_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(static_cast<double>(mantissa), -24)
                                         : std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// A's values as a kernel reading its binary16 copy computes with: float(a) / unscale rounded to
// binary16, times unscale (Matrix::Values::unscale, a power of two).
inline HostCsrMatrix half_rounded(HostCsrMatrix A, float unscale) {
  for (double& v : A.values) v = round_to_half(static_cast<float>(v) / unscale) * unscale;
  return A;
}

}  // namespace clkr::test

// Skips the current test (with the reason) when `precision` cannot live on the device of `context`
// (a shared_ptr or reference to a clkr::Context). A macro, since GTEST_SKIP returns from the function it
// is written in: in a helper it would skip nothing.
#define CLKR_SKIP_UNLESS_AVAILABLE(context, precision)                                     \
  do {                                                                                     \
    const ::clkr::Context& clkr_skip_context_ = ::clkr::test::detail_context_ref(context); \
    if (!::clkr::test::device_supports(clkr_skip_context_, (precision)))                   \
      GTEST_SKIP() << ::clkr::test::unsupported_reason(clkr_skip_context_, (precision));   \
  } while (0)

namespace clkr::test {
inline const Context& detail_context_ref(const Context& c) { return c; }
template <class Pointer>
const Context& detail_context_ref(const Pointer& p) {
  return *p;
}
}  // namespace clkr::test
