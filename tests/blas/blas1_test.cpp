// BLAS1 through clkr::Blas (AXPY, AYPX, SCAL, COPY, DOT, NRM2) in every precision, on the device with
// both kernel variants and on the host reference, against long double on random data at awkward sizes;
// plus exactness, aliasing, device/host bitwise agreement and the quasi-double accuracy gain.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/runtime/error.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using test::test_context;

// Where and how a Blas under test runs.
enum class Config { Host, DeviceChunked, DeviceGridStride };

std::string to_string(Config c) {
  static const char* const names[] = {"Host", "Chunked", "GridStride"};
  return names[static_cast<int>(c)];
}

// Launch parameters chosen to make small vectors exercise the interesting paths:
// chunked: 3 work-items per compute unit in groups of 2 (uneven chunks, a work-group reduction in
// dot_partial, work-items past the end); grid-stride: a grid of compute units x 2 x 64 work-items
// (several strides at n ~ 1000) and a reduction work-group of 48, not a power of two.
DeviceParams chunked_params() {
  DeviceParams p;
  p.source = "test:chunked";
  p.blas1 = {Blas1Variant::Chunked, 2, 1, 3, 8};
  p.reduction = {48, 2};
  return p;
}

DeviceParams grid_stride_params() {
  DeviceParams p;
  p.source = "test:grid_stride";
  p.blas1 = {Blas1Variant::GridStride, 64, 2, 1, 8};
  p.reduction = {48, 2};
  return p;
}

Blas make_blas(Config c, Precision p) {
  BlasOptions options;
  if (c == Config::DeviceChunked) options.params = chunked_params();
  if (c == Config::DeviceGridStride) options.params = grid_stride_params();
  return Blas(test_context(), c == Config::Host ? Location::Host : Location::Device, p, options);
}

double blas1_tolerance(Precision p) {
  switch (p) {
    case Precision::Single:
      return 1e-6;
    case Precision::QuasiDouble:
      return 1e-13;
    case Precision::Double:
      break;
  }
  return 1e-14;
}

// Sizes around every boundary of the test launches: tiny, vector width +/- 1, the grid-stride grid
// (2 compute units x 2 x 64 = 256 on PoCL) +/- 1, chunks with a scalar remainder, a large odd size.
const std::vector<std::size_t> kSizes = {0, 1, 3, 4, 5, 7, 8, 9, 17, 63, 65, 255, 257, 1023, 1025, 4097, 100003};
const std::vector<double> kAlphas = {1.0, 2.5, -0.5, 0.0};

// Random values in (-1, 1), rounded to float for single precision so the reference sees exactly the
// inputs the computation sees.
std::vector<double> random_inputs(std::size_t n, Precision p, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& e : v) {
    e = u(rng);
    if (p == Precision::Single) e = static_cast<float>(e);
  }
  return v;
}

// The arrays of the copy of `v` that `blas` computes on, read as stored (no conversion): the device
// buffers or the host arrays in the Blas's precision. Single fills `head`, quasi-double `head` and
// `tail`, double `d`.
struct Raw {
  std::vector<float> head, tail;
  std::vector<double> d;
  bool operator==(const Raw& o) const { return head == o.head && tail == o.tail && d == o.d; }
};

Raw read_raw(Vector& v, const Blas& blas) {
  const std::size_t n = v.size();
  const Precision p = blas.precision();
  Raw r;
  if (p == Precision::Double)
    r.d.resize(n);
  else
    r.head.resize(n);
  if (p == Precision::QuasiDouble) r.tail.resize(n);
  if (blas.location() == Location::Host) {
    if (p == Precision::Single) {
      std::copy_n(v.host_single(Access::Read), n, r.head.begin());
    } else if (p == Precision::QuasiDouble) {
      const auto q = v.host_quasi_double(Access::Read);
      std::copy_n(q.head, n, r.head.begin());
      std::copy_n(q.tail, n, r.tail.begin());
    } else {
      std::copy_n(v.host_double(Access::Read), n, r.d.begin());
    }
    return r;
  }
  const auto buffers = v.device(p, Access::Read);
  if (n == 0) return r;
  auto& queue = test_context()->queue();
  if (p == Precision::Double) {
    queue.enqueueReadBuffer(buffers.primary, CL_TRUE, 0, n * sizeof(double), r.d.data());
  } else {
    queue.enqueueReadBuffer(buffers.primary, CL_TRUE, 0, n * sizeof(float), r.head.data());
    if (p == Precision::QuasiDouble)
      queue.enqueueReadBuffer(buffers.tail, CL_TRUE, 0, n * sizeof(float), r.tail.data());
  }
  return r;
}

// The values of that copy (quasi-double as head + tail, exact in long double).
std::vector<long double> read_copy(Vector& v, const Blas& blas) {
  const Raw r = read_raw(v, blas);
  std::vector<long double> out(v.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = r.d.empty() ? static_cast<long double>(r.head[i]) + (r.tail.empty() ? 0.0f : r.tail[i]) : r.d[i];
  return out;
}

// Fills the copy `blas` computes on with NaN, so any element an operation fails to write shows.
void poison(Vector& v, const Blas& blas) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (blas.location() == Location::Device) {
    v.fill(nan, blas.precision());
    return;
  }
  const std::size_t n = v.size();
  switch (blas.precision()) {
    case Precision::Single:
      std::fill_n(v.host_single(Access::Write), n, static_cast<float>(nan));
      break;
    case Precision::QuasiDouble: {
      const auto q = v.host_quasi_double(Access::Write);
      std::fill_n(q.head, n, static_cast<float>(nan));
      std::fill_n(q.tail, n, static_cast<float>(nan));
      break;
    }
    case Precision::Double:
      std::fill_n(v.host_double(Access::Write), n, nan);
      break;
  }
}

class Blas1 : public ::testing::TestWithParam<std::tuple<Precision, Config>> {
 protected:
  void SetUp() override {
    precision_ = std::get<0>(GetParam());
    config_ = std::get<1>(GetParam());
    if (config_ != Config::Host && precision_ == Precision::Double && !test_context()->info().fp64)
      GTEST_SKIP() << "device has no fp64";
  }

  // Runs an element-wise operation on (x, y) at every size and alpha and checks every output
  // element against `reference(a, x_i, y_i)` within tolerance * `scale(a, x_i, y_i)`, and that x
  // is unchanged. `op(blas, a, x, y)` runs the operation.
  template <class Op, class Reference, class Scale>
  void check_elementwise(Op op, Reference reference, Scale scale) {
    Blas blas = make_blas(config_, precision_);
    std::mt19937_64 rng(1234);
    for (std::size_t n : kSizes) {
      for (double a : kAlphas) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", a = " + std::to_string(a));
        const auto xs = random_inputs(n, precision_, rng), ys = random_inputs(n, precision_, rng);
        Vector x(test_context(), xs, "x"), y(test_context(), ys, "y");
        const auto x_before = read_copy(x, blas), y_before = read_copy(y, blas);
        op(blas, a, x, y);
        const auto x_after = read_copy(x, blas), y_after = read_copy(y, blas);
        ASSERT_EQ(x_after, x_before) << "input x was modified";
        for (std::size_t i = 0; i < n; ++i) {
          const long double expected = reference(a, x_before[i], y_before[i]);
          const long double bound = blas1_tolerance(precision_) * scale(a, x_before[i], y_before[i]);
          ASSERT_LE(std::fabs(y_after[i] - expected), bound)
              << "element " << i << ": got " << static_cast<double>(y_after[i]) << ", expected "
              << static_cast<double>(expected);
        }
      }
    }
  }

  // Checks DOT or NRM2 (`nrm2`) at every size against long double.
  void check_reduction(bool nrm2) {
    Blas blas = make_blas(config_, precision_);
    std::mt19937_64 rng(99);
    for (std::size_t n : kSizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      const auto xs = random_inputs(n, precision_, rng), ys = random_inputs(n, precision_, rng);
      Vector x(test_context(), xs, "x"), y(test_context(), ys, "y");
      const auto xv = read_copy(x, blas), yv = read_copy(y, blas);
      long double exact = 0, magnitude = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const long double term = nrm2 ? xv[i] * xv[i] : xv[i] * yv[i];
        exact += term;
        magnitude += std::fabs(term);
      }
      // Rounding errors of a sum of n terms grow like sqrt(n) on random data; relative to sum |term|.
      const long double bound =
          blas1_tolerance(precision_) * std::max(1.0, std::sqrt(static_cast<double>(n))) * magnitude;
      if (nrm2) {
        const double got = blas.nrm2(x);
        const long double expected = std::sqrt(exact);
        // d sqrt(s) = ds / (2 sqrt(s))
        EXPECT_LE(std::fabs(got - expected), n == 0 ? 0.0L : bound / (2 * expected)) << "got " << got;
      } else {
        const DeviceScalar scalar = blas.dot_async(x, y);
        EXPECT_EQ(scalar.precision(), blas.location() == Location::Host ? Precision::Double : precision_);
        const double got = scalar.value();
        EXPECT_LE(std::fabs(got - exact), bound) << "got " << got << ", expected " << static_cast<double>(exact);
        EXPECT_EQ(blas.dot(x, y), got) << "dot and dot_async disagree";
      }
      EXPECT_EQ(read_copy(x, blas), xv) << "input x was modified";
      EXPECT_EQ(read_copy(y, blas), yv) << "input y was modified";
    }
  }

  Precision precision_ = Precision::Single;
  Config config_ = Config::Host;
};

TEST_P(Blas1, Axpy) {
  check_elementwise([](Blas& b, double a, Vector& x, Vector& y) { b.axpy(a, x, y); },
                    [](long double a, long double x, long double y) { return a * x + y; },
                    [](long double a, long double x, long double y) { return std::fabs(a * x) + std::fabs(y); });
}

TEST_P(Blas1, Aypx) {
  check_elementwise([](Blas& b, double a, Vector& x, Vector& y) { b.aypx(a, x, y); },
                    [](long double a, long double x, long double y) { return a * y + x; },
                    [](long double a, long double x, long double y) { return std::fabs(a * y) + std::fabs(x); });
}

TEST_P(Blas1, Scal) {
  // SCAL has one operand: run it on y and let the x checks confirm x is untouched.
  check_elementwise([](Blas& b, double a, Vector&, Vector& y) { b.scal(a, y); },
                    [](long double a, long double, long double y) { return a * y; },
                    [](long double a, long double, long double y) { return std::fabs(a * y); });
}

TEST_P(Blas1, CopyOverwritesEveryElementExactly) {
  Blas blas = make_blas(config_, precision_);
  std::mt19937_64 rng(7);
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    Vector x(test_context(), random_inputs(n, precision_, rng), "x");
    Vector y(test_context(), n, "y");
    const auto x_before = read_raw(x, blas);
    poison(y, blas);
    blas.copy(x, y);
    EXPECT_EQ(read_raw(y, blas), x_before);
    EXPECT_EQ(read_raw(x, blas), x_before) << "input x was modified";
  }
}

TEST_P(Blas1, Dot) { check_reduction(false); }

TEST_P(Blas1, Nrm2) { check_reduction(true); }

// Values whose squares leave the precision's range (double: 1e200 and 1e-200; float arithmetic, single
// and quasi-double: 1e25 and 1e-25) still give the norm to the precision's accuracy, not Inf or 0;
// a vector holding Inf or NaN gives Inf or NaN.
TEST_P(Blas1, Nrm2NeitherOverflowsNorUnderflows) {
  Blas blas = make_blas(config_, precision_);
  std::mt19937_64 rng(17);
  const double big = precision_ == Precision::Double ? 1e200 : 1e25;
  for (double scale : {big, 1 / big}) {
    for (std::size_t n : kSizes) {
      if (n == 0) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", scale " + std::to_string(scale));
      std::vector<double> xs = random_inputs(n, precision_, rng);
      for (double& v : xs) v = precision_ == Precision::Single ? static_cast<float>(v * scale) : v * scale;
      Vector x(test_context(), xs, "x");
      const auto xv = read_copy(x, blas);
      long double squares = 0;  // long double's range holds these squares
      for (long double v : xv) squares += v * v;
      const long double expected = std::sqrt(squares);
      const double got = blas.nrm2(x);
      ASSERT_TRUE(std::isfinite(got) && got > 0) << "got " << got;
      EXPECT_LE(std::fabs(got - expected), blas1_tolerance(precision_) * expected) << "got " << got;
    }
  }
  for (double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    std::vector<double> xs(1025, 1.0);
    xs[700] = bad;
    Vector x(test_context(), xs, "x");
    const double got = blas.nrm2(x);
    if (std::isnan(bad)) {
      EXPECT_TRUE(std::isnan(got)) << got;
    } else {
      EXPECT_EQ(got, bad);
    }
  }
}

// Small integers make every partial sum exact in every precision, so any element dropped or counted
// twice by a launch or reduction shows as an exact mismatch.
TEST_P(Blas1, DotOfSmallIntegersIsExact) {
  Blas blas = make_blas(config_, precision_);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> u(-8, 8);
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<double> xs(n), ys(n);
    double exact = 0, squares = 0;
    for (std::size_t i = 0; i < n; ++i) {
      xs[i] = u(rng);
      ys[i] = u(rng);
      exact += xs[i] * ys[i];
      squares += xs[i] * xs[i];
    }
    Vector x(test_context(), xs, "x"), y(test_context(), ys, "y");
    EXPECT_EQ(blas.dot(x, y), exact);
    EXPECT_EQ(blas.nrm2(x), std::sqrt(squares));
  }
}

TEST_P(Blas1, SameVectorAsBothOperands) {
  Blas blas = make_blas(config_, precision_);
  std::mt19937_64 rng(11);
  const std::size_t n = 1025;
  Vector x(test_context(), random_inputs(n, precision_, rng), "x");
  const auto before = read_copy(x, blas);
  long double squares = 0;
  for (long double v : before) squares += v * v;
  EXPECT_NEAR(blas.dot(x, x), static_cast<double>(squares), blas1_tolerance(precision_) * 40 * squares);
  blas.axpy(2.5, x, x);  // x = 3.5 x
  blas.copy(x, x);       // a no-op
  const auto after = read_copy(x, blas);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(static_cast<double>(after[i]), static_cast<double>(3.5L * before[i]),
                blas1_tolerance(precision_) * 3.5 * std::fabs(static_cast<double>(before[i])))
        << "element " << i;
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Precision, Config>>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    AllPrecisionsAndBackends, Blas1,
    ::testing::Combine(::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                       ::testing::Values(Config::Host, Config::DeviceChunked, Config::DeviceGridStride)),
    param_name);

// The device kernels and the host reference use the same operations in the same order without
// contraction, so element-wise results must agree bit for bit in every precision and variant.
TEST(Blas1Agreement, DeviceMatchesHostBitForBit) {
  std::mt19937_64 rng(3);
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double}) {
    // Without fp64 there is no device double to compare (asking is a clkr::Error, tested in
    // tests/solver/no_fp64_test.cpp); single and quasi-double are still compared bit for bit.
    if (!test::device_supports(*test_context(), p)) continue;
    Blas host = make_blas(Config::Host, p);
    for (Config c : {Config::DeviceChunked, Config::DeviceGridStride}) {
      SCOPED_TRACE(to_string(p) + " " + to_string(c));
      Blas device = make_blas(c, p);
      const std::size_t n = 1025;
      // Float-exact inputs: both sides then start from identical copies, whichever way Vector converts.
      const auto xs = random_inputs(n, Precision::Single, rng), ys = random_inputs(n, Precision::Single, rng);
      Vector xh(test_context(), xs, "xh"), yh(test_context(), ys, "yh");
      Vector xd(test_context(), xs, "xd"), yd(test_context(), ys, "yd");
      host.axpy(-0.7, xh, yh);
      device.axpy(-0.7, xd, yd);
      host.aypx(1.3, xh, yh);
      device.aypx(1.3, xd, yd);
      host.scal(0.1, yh);
      device.scal(0.1, yd);
      EXPECT_EQ(read_raw(yd, device), read_raw(yh, host));
    }
  }
}

// The point of quasi-double: a long dot product far more accurate than single precision. Positive
// terms so single's rounding errors accumulate rather than cancel by luck.
TEST(Blas1Accuracy, QuasiDoubleDotIsAtLeast1e5TimesMoreAccurateThanSingle) {
  const std::size_t n = 1000000;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xs(n), ys(n);
  long double exact = 0;
  for (std::size_t i = 0; i < n; ++i) {
    xs[i] = u(rng);
    ys[i] = u(rng);
    exact += static_cast<long double>(xs[i]) * ys[i];
  }
  Vector x(test_context(), xs, "x"), y(test_context(), ys, "y");
  const double single = Blas(test_context(), Location::Device, Precision::Single).dot(x, y);
  const double qd = Blas(test_context(), Location::Device, Precision::QuasiDouble).dot(x, y);
  const long double single_error = std::fabs(single - exact), qd_error = std::fabs(qd - exact);
  std::ostringstream errors;
  errors << std::scientific << "single " << static_cast<double>(single_error / exact) << ", quasi-double "
         << static_cast<double>(qd_error / exact);
  RecordProperty("relative_errors", errors.str());
  EXPECT_LE(qd_error * 1e5L, single_error) << errors.str();
  EXPECT_LE(qd_error, 1e-13L * exact);
}

}  // namespace
}  // namespace clkr
