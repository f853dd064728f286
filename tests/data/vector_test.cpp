// Tests of clkr::Vector: every status transition between its six copies (values, validity, traffic),
// the quasi-double split and merge kernels, lazy zero, fill, clone, move and zero length.
#include "clkr/data/vector.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;
using test::fp64;

// One of the six copies, by a two-letter code: h/d (host/device) then S/Q/D (single, quasi-double, double).
struct Copy {
  Location location;
  Precision precision;
  std::string code;
};

const std::vector<Copy>& all_copies() {
  static const std::vector<Copy> copies = {
      {Location::Host, Precision::Single, "hS"},        {Location::Host, Precision::QuasiDouble, "hQ"},
      {Location::Host, Precision::Double, "hD"},        {Location::Device, Precision::Single, "dS"},
      {Location::Device, Precision::QuasiDouble, "dQ"}, {Location::Device, Precision::Double, "dD"}};
  return copies;
}

const Copy& copy_of(const std::string& code) {
  for (const Copy& c : all_copies())
    if (c.code == code) return c;
  throw std::logic_error("no copy " + code);
}

bool possible(const Copy& c) { return fp64() || c.code != "dD"; }

// The valid copies in the order of all_copies(), e.g. "hS hQ dS".
std::string valid_set(const Vector& v) {
  std::string s;
  for (const Copy& c : all_copies())
    if (v.is_valid(c.location, c.precision)) s += (s.empty() ? "" : " ") + c.code;
  return s;
}

// A copy's contents: `d` for double copies, `head` (and `tail` for quasi-double) otherwise.
struct Contents {
  std::vector<double> d;
  std::vector<float> head, tail;
};

// The double-rounding-free split every conversion must reproduce bit for bit.
void split(double d, float& head, float& tail) {
  head = static_cast<float>(d);
  tail = static_cast<float>(d - static_cast<double>(head));
}

// What copy `p` must hold when the vector was written as `from` in precision `written` with the
// logical values d (written copies hold float(d), or split(d)).
Contents expected(Precision written, Precision p, const std::vector<double>& d) {
  Contents c;
  const std::size_t n = d.size();
  std::vector<float> h(n), t(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    if (written == Precision::Single) h[i] = static_cast<float>(d[i]);
    if (written != Precision::Single) split(d[i], h[i], t[i]);
  }
  if (p == Precision::Double) {
    c.d.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      c.d[i] = static_cast<double>(h[i]);  // single widens exactly (keeping -0)
      if (written == Precision::QuasiDouble) c.d[i] += static_cast<double>(t[i]);
      if (written == Precision::Double) c.d[i] = d[i];
    }
  } else {
    c.head = h;
    if (p == Precision::QuasiDouble) c.tail = t;
  }
  return c;
}

// Asks for a copy through the access function of its location and precision.
void touch(Vector& v, const Copy& c, Access access) {
  if (c.location == Location::Device) v.device(c.precision, access);
  if (c.code == "hS") v.host_single(access);
  if (c.code == "hQ") v.host_quasi_double(access);
  if (c.code == "hD") v.host_double(access);
}

// Reads a copy, making it valid first (Read access on a valid copy changes nothing).
Contents read_copy(Vector& v, const Copy& c) {
  const std::size_t n = v.size();
  Contents out;
  if (c.location == Location::Host) {
    if (c.precision == Precision::Double) {
      const double* p = v.host_double(Access::Read);
      out.d.assign(p, p + n);
    } else if (c.precision == Precision::Single) {
      const float* p = v.host_single(Access::Read);
      out.head.assign(p, p + n);
    } else {
      const auto q = v.host_quasi_double(Access::Read);
      out.head.assign(q.head, q.head + n);
      out.tail.assign(q.tail, q.tail + n);
    }
    return out;
  }
  const auto b = v.device(c.precision, Access::Read);
  auto& queue = context()->queue();
  if (c.precision == Precision::Double) {
    out.d.resize(n);
    if (n) queue.enqueueReadBuffer(b.primary, CL_TRUE, 0, n * 8, out.d.data());
  } else {
    out.head.resize(n);
    if (n) queue.enqueueReadBuffer(b.primary, CL_TRUE, 0, n * 4, out.head.data());
    if (c.precision == Precision::QuasiDouble) {
      out.tail.resize(n);
      if (n) queue.enqueueReadBuffer(b.tail, CL_TRUE, 0, n * 4, out.tail.data());
    }
  }
  return out;
}

// Overwrites a copy through Write access with the representation of d in its precision.
void write_copy(Vector& v, const Copy& c, const std::vector<double>& d) {
  const Contents x = expected(c.precision, c.precision, d);
  const std::size_t n = v.size();
  if (c.location == Location::Host) {
    if (c.precision == Precision::Double) std::copy(x.d.begin(), x.d.end(), v.host_double(Access::Write));
    if (c.precision == Precision::Single) std::copy(x.head.begin(), x.head.end(), v.host_single(Access::Write));
    if (c.precision == Precision::QuasiDouble) {
      const auto q = v.host_quasi_double(Access::Write);
      std::copy(x.head.begin(), x.head.end(), q.head);
      std::copy(x.tail.begin(), x.tail.end(), q.tail);
    }
    return;
  }
  const auto b = v.device(c.precision, Access::Write);
  if (n == 0) return;
  auto& queue = context()->queue();
  if (c.precision == Precision::Double) {
    queue.enqueueWriteBuffer(b.primary, CL_TRUE, 0, n * 8, x.d.data());
  } else {
    queue.enqueueWriteBuffer(b.primary, CL_TRUE, 0, n * 4, x.head.data());
    if (c.precision == Precision::QuasiDouble) queue.enqueueWriteBuffer(b.tail, CL_TRUE, 0, n * 4, x.tail.data());
  }
}

// Bitwise equality (NaN poison shows up, -0 differs from +0).
template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0)
        << what << " element " << i << ": " << got[i] << " vs " << want[i];
}

void expect_contents(const Contents& got, const Contents& want, const std::string& what) {
  expect_same_bits(got.d, want.d, what + " double");
  expect_same_bits(got.head, want.head, what + " head");
  expect_same_bits(got.tail, want.tail, what + " tail");
}

// Random doubles over 2^-40 .. 2^40 of both signs (every bit of the mantissa used), with zeros of
// both signs and a few exactly representable values among them.
std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::ldexp(mantissa(rng), exponent(rng)) * (rng() % 2 ? 1 : -1);
  const double special[] = {0.0, -0.0, 1.0, -0.75, 1.0 / 3.0, 3.0e30, -2.5e-30};
  for (std::size_t i = 0; i < std::size(special) && i < n; ++i) v[(i * 7919) % n] = special[i];
  return v;
}

// Fills every possible copy with NaN, so that a conversion that misses an element shows.
void poison_all(Vector& v) {
  const std::vector<double> nan(v.size(), std::numeric_limits<double>::quiet_NaN());
  for (const Copy& c : all_copies())
    if (possible(c)) write_copy(v, c, nan);
}

void expect_traffic(const Vector& v, std::size_t h2d, std::size_t d2h, std::size_t device_conversions,
                    std::size_t host_conversions) {
  EXPECT_EQ(v.traffic().host_to_device, h2d);
  EXPECT_EQ(v.traffic().device_to_host, d2h);
  EXPECT_EQ(v.traffic().device_conversions, device_conversions);
  EXPECT_EQ(v.traffic().host_conversions, host_conversions);
}

// ---- every transition: write one copy, require another -------------------------------------------

struct Transition {
  const char* from;
  const char* to;
  std::size_t h2d, d2h, device_conversions, host_conversions;
  const char* valid_after;
};

// Conversions run where the data is narrower (see vector.cpp): narrowing/equal-size at the source,
// widening a single copy at the destination; intermediate copies stay valid. Columns: written copy,
// required copy, then host->device and device->host transfers, device and host conversions, and the
// copies valid afterwards.
const Transition kTransitions[] = {
    {"hD", "hS", 0, 0, 0, 1, "hS hD"},          {"hD", "hQ", 0, 0, 0, 1, "hS hQ hD"},
    {"hD", "dS", 1, 0, 0, 1, "hS hD dS"},       {"hD", "dQ", 1, 0, 0, 1, "hS hQ hD dS dQ"},
    {"hD", "dD", 1, 0, 0, 0, "hD dD"},          {"hQ", "hS", 0, 0, 0, 0, "hS hQ"},
    {"hQ", "hD", 0, 0, 0, 1, "hS hQ hD"},       {"hQ", "dS", 1, 0, 0, 0, "hS hQ dS"},
    {"hQ", "dQ", 1, 0, 0, 0, "hS hQ dS dQ"},    {"hQ", "dD", 1, 0, 0, 1, "hS hQ hD dD"},
    {"hS", "hQ", 0, 0, 0, 1, "hS hQ"},          {"hS", "hD", 0, 0, 0, 1, "hS hD"},
    {"hS", "dS", 1, 0, 0, 0, "hS dS"},          {"hS", "dQ", 1, 0, 1, 0, "hS dS dQ"},
    {"hS", "dD", 1, 0, 1, 0, "hS dS dD"},       {"dD", "dS", 0, 0, 1, 0, "dS dD"},
    {"dD", "dQ", 0, 0, 1, 0, "dS dQ dD"},       {"dD", "hS", 0, 1, 1, 0, "hS dS dD"},
    {"dD", "hQ", 0, 1, 1, 0, "hS hQ dS dQ dD"}, {"dD", "hD", 0, 1, 0, 0, "hD dD"},
    {"dQ", "dS", 0, 0, 0, 0, "dS dQ"},          {"dQ", "dD", 0, 0, 1, 0, "dS dQ dD"},
    {"dQ", "hS", 0, 1, 0, 0, "hS dS dQ"},       {"dQ", "hQ", 0, 1, 0, 0, "hS hQ dS dQ"},
    {"dQ", "hD", 0, 1, 1, 0, "hD dS dQ dD"},    {"dS", "dQ", 0, 0, 1, 0, "dS dQ"},
    {"dS", "dD", 0, 0, 1, 0, "dS dD"},          {"dS", "hS", 0, 1, 0, 0, "hS dS"},
    {"dS", "hQ", 0, 1, 0, 1, "hS hQ dS"},       {"dS", "hD", 0, 1, 0, 1, "hS hD dS"},
};

class VectorTransition : public ::testing::TestWithParam<Transition> {};

TEST_P(VectorTransition, ConvertsOrTransfersFromTheWrittenCopy) {
  Transition t = GetParam();
  const Copy& from = copy_of(t.from);
  const Copy& to = copy_of(t.to);
  if (!possible(from) || !possible(to)) GTEST_SKIP() << "device without fp64";
  if (!fp64() && from.code == "dQ" && to.code == "hD")  // no merge kernel: transfer, then merge on the host
    t = {"dQ", "hD", 0, 1, 0, 1, "hS hQ hD dS dQ"};

  const std::size_t n = 1025;  // not a multiple of the work-group size
  const std::vector<double> d = random_values(n, 42);
  Vector v(context(), n, "x");
  poison_all(v);
  write_copy(v, from, d);
  std::string written = from.code;
  if (from.precision == Precision::QuasiDouble) written = from.location == Location::Host ? "hS hQ" : "dS dQ";
  ASSERT_EQ(valid_set(v), written);
  expect_traffic(v, 0, 0, 0, 0);

  const Contents source_before = read_copy(v, from);
  touch(v, to, Access::Read);
  EXPECT_EQ(valid_set(v), t.valid_after);
  expect_traffic(v, t.h2d, t.d2h, t.device_conversions, t.host_conversions);
  expect_contents(read_copy(v, to), expected(from.precision, to.precision, d), to.code);
  expect_contents(read_copy(v, from), source_before, std::string("source ") + from.code);
  // Every other valid copy is consistent too (intermediates of the transition).
  for (const Copy& c : all_copies())
    if (v.is_valid(c.location, c.precision))
      expect_contents(read_copy(v, c), expected(from.precision, c.precision, d), "intermediate " + c.code);
  expect_traffic(v, t.h2d, t.d2h, t.device_conversions, t.host_conversions);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, VectorTransition, ::testing::ValuesIn(kTransitions),
                         [](const ::testing::TestParamInfo<Transition>& info) {
                           return std::string(info.param.from) + "_to_" + info.param.to;
                         });

// ---- access modes ------------------------------------------------------------------------------------

// A vector whose every possible copy is valid.
Vector all_valid(const std::vector<double>& d) {
  Vector v(context(), d, "x");
  for (const Copy& c : all_copies())
    if (possible(c)) touch(v, c, Access::Read);
  return v;
}

TEST(Vector, WriteAndReadWriteLeaveOnlyTheAccessedCopy) {
  const std::vector<double> d = random_values(37, 7);
  std::string everything = fp64() ? "hS hQ hD dS dQ dD" : "hS hQ hD dS dQ";
  for (Access access : {Access::Write, Access::ReadWrite}) {
    for (const Copy& c : all_copies()) {
      if (!possible(c)) continue;
      SCOPED_TRACE(c.code + (access == Access::Write ? " Write" : " ReadWrite"));
      Vector v = all_valid(d);
      ASSERT_EQ(valid_set(v), everything);
      const VectorTraffic before = v.traffic();
      touch(v, c, access);
      // Writing quasi-double keeps the single copy (its head); writing single invalidates quasi-double.
      std::string left = c.code;
      if (c.code == "hQ") left = "hS hQ";
      if (c.code == "dQ") left = "dS dQ";
      EXPECT_EQ(valid_set(v), left);
      EXPECT_EQ(v.traffic().host_to_device + v.traffic().device_to_host, before.host_to_device + before.device_to_host);
      EXPECT_FALSE(v.is_lazy_zero());
      if (access == Access::ReadWrite)
        expect_contents(read_copy(v, c), expected(Precision::Double, c.precision, d), c.code);
    }
  }
}

TEST(Vector, ReadKeepsEveryCopy) {
  const std::vector<double> d = random_values(37, 8);
  Vector v = all_valid(d);
  const std::string everything = valid_set(v);
  const VectorTraffic before = v.traffic();
  for (const Copy& c : all_copies())
    if (possible(c)) read_copy(v, c);
  EXPECT_EQ(valid_set(v), everything);
  expect_traffic(v, before.host_to_device, before.device_to_host, before.device_conversions, before.host_conversions);
}

TEST(Vector, WritingSingleThenQuasiDoubleMakesATailOfZeros) {
  // A single copy written alone has no tail: quasi-double from it is (value, 0), not stale data.
  const std::vector<double> d = random_values(100, 9);
  Vector v(context(), d, "x");
  v.device(Precision::QuasiDouble, Access::Read);  // tail now holds real tails
  write_copy(v, copy_of("dS"), d);                 // only the head changes (same values, as floats)
  EXPECT_EQ(valid_set(v), "dS");
  expect_contents(read_copy(v, copy_of("hQ")), expected(Precision::Single, Precision::QuasiDouble, d), "hQ");
}

// A kernel that writes the device double copy may store the single copy in the same pass (the fused
// mixed-precision CG does): both are then valid, and reading the single one converts nothing. Taking
// it in any other state is an internal error, not a stale copy marked valid.
TEST(Vector, SingleWrittenAlongsideDoubleIsValidWithoutAConversion) {
  if (!fp64()) GTEST_SKIP() << "device without fp64";
  const std::vector<double> d = random_values(1025, 10);
  Vector v(context(), d, "x");
  v.device(Precision::Single, Access::Read);
  write_copy(v, copy_of("dD"), d);
  const cl::Buffer single = v.device_single_alongside_double();
  const Contents rounded = expected(Precision::Single, Precision::Single, d);
  context()->queue().enqueueWriteBuffer(single, CL_TRUE, 0, d.size() * 4, rounded.head.data());
  EXPECT_EQ(valid_set(v), "dS dD");
  const VectorTraffic before = v.traffic();
  expect_contents(read_copy(v, copy_of("dS")), rounded, "dS");
  expect_traffic(v, before.host_to_device, before.device_to_host, before.device_conversions, before.host_conversions);

  Vector host_too(context(), d, "y");
  host_too.device(Precision::Double, Access::Read);  // host and device double valid: nothing was just written
  EXPECT_THROW(host_too.device_single_alongside_double(), Error);
  Vector single_only(context(), d, "z");
  write_copy(single_only, copy_of("dS"), d);
  EXPECT_THROW(single_only.device_single_alongside_double(), Error);
}

TEST(Vector, ConvertsFromTheMostPreciseValidCopy) {
  // With a host single and a device double valid, a host quasi-double comes from the double
  // (split on the device, then transferred), not from the single (which would give a zero tail).
  if (!fp64()) GTEST_SKIP() << "device without fp64";
  const std::vector<double> d = random_values(257, 10);
  Vector v(context(), 257, "x");
  write_copy(v, copy_of("dD"), d);
  touch(v, copy_of("hS"), Access::Read);
  ASSERT_EQ(valid_set(v), "hS dS dD");
  touch(v, copy_of("hQ"), Access::Read);
  expect_contents(read_copy(v, copy_of("hQ")), expected(Precision::Double, Precision::QuasiDouble, d), "hQ");
  expect_traffic(v, 0, 2, 2, 0);
}

// ---- lazy zero -------------------------------------------------------------------------------------

TEST(Vector, NewVectorIsLazyZeroAndEveryCopyIsZeroFilled) {
  for (const Copy& c : all_copies()) {
    if (!possible(c)) continue;
    SCOPED_TRACE(c.code);
    Vector v(context(), 1025, "z");
    EXPECT_TRUE(v.is_lazy_zero());
    EXPECT_EQ(valid_set(v), "");
    EXPECT_EQ(v.to_host(), std::vector<double>(1025, 0.0));
    touch(v, c, Access::Read);
    EXPECT_FALSE(v.is_lazy_zero());
    expect_contents(read_copy(v, c), expected(Precision::Double, c.precision, std::vector<double>(1025, 0.0)), c.code);
    // Another copy is filled with zeros too, not converted or transferred.
    const Copy& other = c.location == Location::Host ? copy_of("dS") : copy_of("hD");
    touch(v, other, Access::Read);
    expect_traffic(v, 0, 0, 0, 0);
    expect_contents(read_copy(v, other), expected(Precision::Double, other.precision, std::vector<double>(1025, 0.0)),
                    other.code);
  }
}

TEST(Vector, WriteEndsLazyZero) {
  Vector v(context(), 10, "z");
  double* p = v.host_double(Access::Write);  // a Write promises to set every element
  p[0] = 1.0;
  std::fill(p + 1, p + 10, 2.0);
  EXPECT_FALSE(v.is_lazy_zero());
  EXPECT_EQ(v.to_host()[0], 1.0);
  EXPECT_EQ(v.to_host()[9], 2.0);
  EXPECT_EQ(valid_set(v), "hD");
}

// ---- the split and merge kernels -------------------------------------------------------------------

TEST(Vector, QuasiDoubleSplitOnTheDeviceIsExactToTwoToTheMinus48) {
  const std::size_t n = 4099;
  if (!fp64()) GTEST_SKIP() << "device without fp64: splits happen on the host";
  const std::vector<double> d = random_values(n, 11);
  Vector v(context(), n, "x");
  write_copy(v, copy_of("dD"), d);
  const Contents qd = read_copy(v, copy_of("dQ"));  // split_double on the device
  expect_traffic(v, 0, 0, 1, 0);
  expect_contents(qd, expected(Precision::Double, Precision::QuasiDouble, d), "device split");
  double worst_qd = 0, worst_single = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (d[i] == 0) continue;
    const long double exact = d[i];
    const long double pair = static_cast<long double>(qd.head[i]) + static_cast<long double>(qd.tail[i]);
    worst_qd = std::max(worst_qd, static_cast<double>(std::fabs((pair - exact) / exact)));
    worst_single = std::max(worst_single, static_cast<double>(std::fabs((qd.head[i] - exact) / exact)));
  }
  EXPECT_LE(worst_qd, std::ldexp(1.0, -48));
  EXPECT_GE(worst_single / worst_qd, 1e5) << "single " << worst_single << ", quasi-double " << worst_qd;
  std::ostringstream worst;
  worst << std::scientific << worst_qd << " (single " << worst_single << ")";
  RecordProperty("worst_relative_error_qd", worst.str());
}

TEST(Vector, QuasiDoubleMergeOnTheDeviceRestoresTheDouble) {
  const std::size_t n = 4099;
  const std::vector<double> d = random_values(n, 12);
  if (!fp64()) GTEST_SKIP() << "device without fp64";
  Vector v(context(), n, "x");
  write_copy(v, copy_of("dQ"), d);
  const Contents merged = read_copy(v, copy_of("dD"));  // merge_quasi_double on the device
  expect_traffic(v, 0, 0, 1, 0);
  expect_contents(merged, expected(Precision::QuasiDouble, Precision::Double, d), "device merge");
  for (std::size_t i = 0; i < n; ++i) ASSERT_LE(std::fabs(merged.d[i] - d[i]), std::ldexp(std::fabs(d[i]), -48)) << i;
}

// ---- fill, construction, assign, to_host -----------------------------------------------------------

TEST(Vector, FillSetsOneDeviceCopy) {
  const double value = -1.0 / 3.0;
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double}) {
    SCOPED_TRACE(to_string(p));
    const std::size_t n = 1025;
    Vector v = all_valid(random_values(n, 13));
    if (p == Precision::Double && !fp64()) {
      EXPECT_THROW(v.fill(value, p), Error);
      continue;
    }
    v.fill(value, p);
    EXPECT_EQ(valid_set(v), p == Precision::Single ? "dS" : p == Precision::QuasiDouble ? "dS dQ" : "dD");
    const Copy& c = copy_of(p == Precision::Single ? "dS" : p == Precision::QuasiDouble ? "dQ" : "dD");
    expect_contents(read_copy(v, c), expected(Precision::Double, p, std::vector<double>(n, value)), "fill");
    const Contents e = expected(Precision::Double, p, std::vector<double>(1, value));
    const double as_double =
        p == Precision::Double ? value : static_cast<double>(e.head[0]) + (e.tail.empty() ? 0.0 : e.tail[0]);
    EXPECT_EQ(v.to_host(), std::vector<double>(n, as_double));
  }
}

TEST(Vector, ConstructFromHostValuesAndAssign) {
  const std::vector<double> d = random_values(50, 14);
  Vector a(context(), d, "a");
  EXPECT_EQ(a.size(), 50u);
  EXPECT_EQ(a.name(), "a");
  EXPECT_EQ(valid_set(a), "hD");
  EXPECT_EQ(a.to_host(), d);
  std::vector<float> f(50);
  for (std::size_t i = 0; i < 50; ++i) f[i] = static_cast<float>(d[i]);
  Vector b(context(), f, "b");
  EXPECT_EQ(valid_set(b), "hD");
  for (std::size_t i = 0; i < 50; ++i) EXPECT_EQ(b.to_host()[i], static_cast<double>(f[i]));
  b.device(Precision::Single, Access::Read);
  b.assign(d);
  EXPECT_EQ(valid_set(b), "hD");
  EXPECT_EQ(b.to_host(), d);
  try {
    b.assign(std::vector<double>(49));
    ADD_FAILURE() << "assign of the wrong size accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("50 elements, got 49"), std::string::npos) << e.what();
  }
  EXPECT_THROW(b.assign(std::vector<float>(51)), Error);
  EXPECT_THROW(Vector(nullptr, 3), Error);
}

TEST(Vector, ToHostReadsTheMostPreciseCopyWithoutChangingState) {
  const std::vector<double> d = random_values(300, 15);
  Vector v(context(), 300, "x");
  write_copy(v, copy_of("dQ"), d);
  const std::vector<double> got = v.to_host();
  EXPECT_EQ(valid_set(v), "dS dQ");
  expect_traffic(v, 0, 0, 0, 0);
  expect_same_bits(got, expected(Precision::QuasiDouble, Precision::Double, d).d, "to_host");
}

// ---- clone, move, zero length ------------------------------------------------------------------------

TEST(Vector, CloneIsIndependent) {
  const std::vector<double> d = random_values(513, 16);
  Vector v(context(), d, "v");
  v.device(Precision::QuasiDouble, Access::Read);
  Vector c = v.clone("c");
  EXPECT_EQ(c.name(), "c");
  EXPECT_EQ(v.clone().name(), "v");
  EXPECT_EQ(valid_set(c), valid_set(v));
  expect_traffic(c, 0, 0, 0, 0);
  EXPECT_NE(c.device(Precision::QuasiDouble, Access::Read).primary(),
            v.device(Precision::QuasiDouble, Access::Read).primary());
  expect_contents(read_copy(c, copy_of("dQ")), read_copy(v, copy_of("dQ")), "cloned device copy");

  // Changing the original's copies leaves the clone's alone, and the other way round.
  write_copy(v, copy_of("dQ"), random_values(513, 17));
  write_copy(v, copy_of("hD"), random_values(513, 18));
  EXPECT_EQ(c.to_host(), d);
  expect_contents(read_copy(c, copy_of("dQ")), expected(Precision::Double, Precision::QuasiDouble, d), "clone");
  write_copy(c, copy_of("hD"), d);
  EXPECT_EQ(v.to_host(), random_values(513, 18));

  Vector z(context(), 5, "z");
  EXPECT_TRUE(z.clone().is_lazy_zero());
}

TEST(Vector, MovePreservesTheCopies) {
  const std::vector<double> d = random_values(64, 19);
  Vector v(context(), d, "v");
  v.device(Precision::Single, Access::Read);
  Vector w(std::move(v));
  EXPECT_EQ(w.size(), 64u);
  EXPECT_EQ(valid_set(w), "hS hD dS");
  Vector u(context(), 3, "u");
  u = std::move(w);
  EXPECT_EQ(u.name(), "v");
  EXPECT_EQ(u.to_host(), d);
  EXPECT_THROW(w.size(), Error);  // NOLINT(bugprone-use-after-move): a moved-from Vector refuses clearly
}

TEST(Vector, ZeroLengthWorksEverywhere) {
  Vector v(context(), 0, "empty");
  EXPECT_TRUE(v.is_lazy_zero());
  for (const Copy& c : all_copies()) {
    if (!possible(c)) continue;
    SCOPED_TRACE(c.code);
    read_copy(v, c);
    write_copy(v, c, {});
  }
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double})
    if (p != Precision::Double || fp64()) v.fill(2.0, p);
  EXPECT_TRUE(v.to_host().empty());
  v.assign(std::vector<double>{});
  EXPECT_EQ(v.clone().size(), 0u);
  EXPECT_TRUE(v.clone().to_host().empty());
}

TEST(Vector, DeviceWithoutFp64RefusesTheDoubleDeviceCopy) {
  if (fp64()) GTEST_SKIP() << "device has fp64";
  Vector v(context(), 10, "x");
  try {
    v.device(Precision::Double, Access::Read);
    ADD_FAILURE() << "double device copy made without fp64";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no fp64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
