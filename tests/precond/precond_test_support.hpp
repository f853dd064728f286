// Shared by the preconditioner tests: the test context, Blas configurations (host, both BLAS1 splits),
// random data in a precision, raw reads of the copy a Blas computes on, and the spectrum of Poisson.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::test {

inline const std::shared_ptr<Context>& context() {
  static const std::shared_ptr<Context> shared = Context::create();
  return shared;
}

// Where and how a Blas under test runs: the host reference, the chunked split with each vector width,
// or the grid-stride split.
enum class Config { Host, Chunked2, Chunked4, Chunked8, Chunked16, GridStride };

inline std::string to_string(Config c) {
  static const char* const names[] = {"Host", "Chunked2", "Chunked4", "Chunked8", "Chunked16", "GridStride"};
  return names[static_cast<int>(c)];
}

inline const std::vector<Config>& all_configs() {
  static const std::vector<Config> configs = {Config::Host,     Config::Chunked2,  Config::Chunked4,
                                              Config::Chunked8, Config::Chunked16, Config::GridStride};
  return configs;
}

// Work-group size of the test launches: sizes at its multiples +/- 1 cross a group boundary.
constexpr std::size_t kTestGroupSize = 64;

// Launch parameters that make small vectors exercise the interesting paths. Chunked: 3 work-items per
// compute unit in groups of 2 (uneven chunks, work-items past the end, scalar tails of up to VW - 1
// elements). Grid-stride: compute units x 2 groups of 64 (several strides at n ~ 1000).
inline DeviceParams test_params(Config c) {
  DeviceParams p;
  p.source = "test:" + to_string(c);
  if (c == Config::GridStride) {
    p.blas1 = {Blas1Variant::GridStride, kTestGroupSize, 2, 1, 8};
  } else {
    const std::size_t width = c == Config::Chunked2 ? 2 : c == Config::Chunked4 ? 4 : c == Config::Chunked8 ? 8 : 16;
    p.blas1 = {Blas1Variant::Chunked, 2, 1, 3, width};
  }
  p.reduction = {48, 2};
  return p;
}

inline Blas make_blas(Config c, Precision p) {
  BlasOptions options;
  if (c != Config::Host) options.params = test_params(c);
  return Blas(context(), c == Config::Host ? Location::Host : Location::Device, p, options);
}

inline bool device_lacks_fp64(Location location, Precision p) {
  return location == Location::Device && p == Precision::Double && !context()->info().fp64;
}

// Relative accuracy of one elementwise operation in each precision, with room for a few roundings.
inline double elementwise_tolerance(Precision p) {
  switch (p) {
    case Precision::Single:
      return 1e-6;
    case Precision::QuasiDouble:
      return 1e-13;
    case Precision::Double:
      break;
  }
  return 1e-15;
}

// The unit roundoff of each precision's arithmetic (quasi-double's operations are bounded by 2^-44, as
// in the solver tests).
inline double unit_roundoff(Precision p) {
  return p == Precision::Single ? 0x1.0p-24 : p == Precision::QuasiDouble ? 0x1.0p-44 : 0x1.0p-53;
}

// Double's unit roundoff (2^-53), the u of the error bounds on computations in double.
inline const double kU = unit_roundoff(Precision::Double);

// How far rounding may move a Ritz value of D^-1 A outside its spectrum: Lanczos in finite precision
// keeps its Ritz values within a modest multiple of u ||D^-1 A|| of the spectrum (Paige 1980); 100 u.
inline double ritz_margin(Precision p, double lambda_max) { return 100 * unit_roundoff(p) * lambda_max; }

// Uniform in [lo, hi], rounded to float for single precision so that a reference sees exactly the
// inputs the computation sees.
inline std::vector<double> random_values(std::size_t n, Precision p, std::mt19937_64& rng, double lo = -1.0,
                                         double hi = 1.0) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& e : v) {
    e = u(rng);
    if (p == Precision::Single) e = static_cast<float>(e);
  }
  return v;
}

// The values of the copy of `v` that `blas` computes on, read without conversion: the device buffers
// in its precision, or the host arrays (the host backend of the preconditioner kernels computes on the
// double copy). Quasi-double as head + tail, exact in long double.
inline std::vector<long double> read_copy(Vector& v, const Blas& blas) {
  const std::size_t n = v.size();
  const Precision p = blas.precision();
  std::vector<long double> out(n);
  if (blas.location() == Location::Host) {
    const double* d = v.host_double(Access::Read);
    std::copy_n(d, n, out.begin());
    return out;
  }
  const auto buffers = v.device(p, Access::Read);
  if (n == 0) return out;
  auto& queue = context()->queue();
  if (p == Precision::Double) {
    std::vector<double> d(n);
    queue.enqueueReadBuffer(buffers.primary, CL_TRUE, 0, n * sizeof(double), d.data());
    std::copy(d.begin(), d.end(), out.begin());
    return out;
  }
  std::vector<float> head(n), tail(n, 0.0f);
  queue.enqueueReadBuffer(buffers.primary, CL_TRUE, 0, n * sizeof(float), head.data());
  if (p == Precision::QuasiDouble) queue.enqueueReadBuffer(buffers.tail, CL_TRUE, 0, n * sizeof(float), tail.data());
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<long double>(head[i]) + tail[i];
  return out;
}

// Fills the copy `blas` computes on with NaN (that copy becomes the only valid one), so an operation
// that reads what it should only write, or leaves an element unwritten, shows.
inline void poison(Vector& v, const Blas& blas) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (blas.location() == Location::Device) {
    v.fill(nan, blas.precision());
    return;
  }
  std::fill_n(v.host_double(Access::Write), v.size(), nan);
}

// The extreme eigenvalues of D^-1 A for poisson2d(n) and poisson3d(n) (D = 4I or 6I): the eigenvalues of
// A are sums of 2 - 2 cos(k pi h) over the dimensions, h = 1 / (n + 1), so those of D^-1 A are
// 1 - mean of cos(k_d pi h), from 1 - cos(pi h) to 1 + cos(pi h) in both cases.
inline double poisson_jacobi_lambda_min(int n) { return 1 - std::cos(M_PI / (n + 1)); }
inline double poisson_jacobi_lambda_max(int n) { return 1 + std::cos(M_PI / (n + 1)); }

// y = A x with long double accumulation.
inline std::vector<long double> multiply_long(const HostCsrMatrix& A, const std::vector<long double>& x) {
  std::vector<long double> y(static_cast<std::size_t>(A.rows), 0.0L);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      y[i] += static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
  return y;
}

inline long double dot_long(const std::vector<long double>& x, const std::vector<long double>& y) {
  long double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += x[i] * y[i];
  return sum;
}

inline long double norm_long(const std::vector<long double>& x) { return std::sqrt(dot_long(x, x)); }

inline std::vector<long double> to_long(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// The diagonal of A (zero where not stored).
// tridiag(off, diagonal, off) of n rows: its eigenpairs are known in closed form (diagonal + 2 off
// cos(j pi / (n + 1)), sin(i j pi / (n + 1))).
inline HostCsrMatrix tridiagonal(std::int32_t n, double diagonal, double off) {
  HostCsrMatrix A;
  A.rows = A.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      A.col_indices.push_back(j);
      A.values.push_back(i == j ? diagonal : off);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.symmetric = true;
  return A;
}

inline std::vector<double> host_diagonal(const HostCsrMatrix& A) {
  std::vector<double> d(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) d[i] = A.values[k];
  return d;
}

// Expects `call` to throw clkr::Error whose message contains `needle`.
template <class Call>
void expect_error_naming(Call call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no clkr::Error thrown (expected one naming '" << needle << "')";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

// (Location, Precision) test parameters and their names.
using LocationPrecision = std::tuple<Location, Precision>;
inline std::string location_precision_name(const ::testing::TestParamInfo<LocationPrecision>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
}

// (Precision, Config) test parameters and their names.
using PrecisionConfig = std::tuple<Precision, Config>;
inline std::string precision_config_name(const ::testing::TestParamInfo<PrecisionConfig>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
}

}  // namespace clkr::test
