// The Blas object itself: operand checks and their messages, counters (calls, flops, bytes, time) for a
// known sequence of operations, report(), parameter overrides, and DeviceScalar.
#include "clkr/blas/blas.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/runtime/error.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using test::test_context;

// Expects `body` to throw clkr::Error whose message contains every one of `parts`.
template <class Body>
void expect_error(Body body, const std::vector<std::string>& parts) {
  try {
    body();
    ADD_FAILURE() << "no clkr::Error thrown";
  } catch (const Error& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::vector<double> ramp(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.25 + 0.5 * static_cast<double>(i % 7);
  return v;
}

class BlasChecks : public ::testing::TestWithParam<Location> {};

TEST_P(BlasChecks, SizeMismatchNamesBothVectorsAndSizes) {
  Blas blas(test_context(), GetParam(), Precision::QuasiDouble);
  Vector x(test_context(), ramp(5), "residual"), y(test_context(), ramp(6), "direction");
  const std::vector<std::string> parts = {"residual", "5", "direction", "6"};
  expect_error([&] { blas.axpy(1.0, x, y); }, parts);
  expect_error([&] { blas.aypx(1.0, x, y); }, parts);
  expect_error([&] { blas.copy(x, y); }, parts);
  expect_error([&] { blas.dot(x, y); }, parts);
  expect_error([&] { blas.dot_async(x, y); }, parts);
}

TEST_P(BlasChecks, VectorOfAnotherContextIsRefused) {
  Blas blas(test_context(), GetParam(), Precision::Single);
  auto other = Context::create();
  Vector mine(test_context(), ramp(4), "mine"), theirs(other, ramp(4), "theirs");
  expect_error([&] { blas.axpy(1.0, theirs, mine); }, {"theirs", "another Context"});
  expect_error([&] { blas.scal(2.0, theirs); }, {"theirs", "another Context"});
  expect_error([&] { blas.nrm2(theirs); }, {"theirs", "another Context"});
  expect_error([&] { blas.copy(mine, theirs); }, {"theirs", "another Context"});
}

TEST_P(BlasChecks, SpmvChecksShapesAndAliasing) {
  Blas blas(test_context(), GetParam(), Precision::Single);
  HostCsrMatrix host;  // 2 x 3
  host.rows = 2;
  host.cols = 3;
  host.row_offsets = {0, 2, 3};
  host.col_indices = {0, 2, 1};
  host.values = {1.0, -2.0, 3.0};
  Matrix A(test_context(), host);
  Vector x3(test_context(), ramp(3), "x3"), x2(test_context(), ramp(2), "x2"), y2(test_context(), ramp(2), "y2"),
      y3(test_context(), ramp(3), "y3");
  expect_error([&] { blas.spmv(1.0, A, x2, 0.0, y2); }, {"2 x 3", "x2", "y2"});
  expect_error([&] { blas.spmv(1.0, A, x3, 0.0, y3); }, {"2 x 3", "x3", "y3"});
  Vector square(test_context(), ramp(3), "square");
  HostCsrMatrix identity;
  identity.rows = identity.cols = 3;
  identity.row_offsets = {0, 1, 2, 3};
  identity.col_indices = {0, 1, 2};
  identity.values = {1.0, 1.0, 1.0};
  Matrix I(test_context(), identity);
  expect_error([&] { blas.spmv(1.0, I, square, 0.0, square); }, {"same vector", "square"});
  blas.spmv(2.0, A, x3, 0.0, y2);  // the checks let a valid call through
  const auto y = y2.to_host(), x = x3.to_host();
  EXPECT_DOUBLE_EQ(y[0], 2.0 * (x[0] - 2.0 * x[2]));
  EXPECT_DOUBLE_EQ(y[1], 2.0 * 3.0 * x[1]);
  EXPECT_EQ(blas.counters().at("spmv").calls, 1u);
}

// A known sequence of operations gives exact calls, flops and bytes: element sizes 4 (single), 8
// (quasi-double: two floats) and 8 (double).
TEST_P(BlasChecks, CountersAreExactForAKnownSequence) {
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double}) {
    SCOPED_TRACE(to_string(p));
    // Double on a device without fp64 is a clkr::Error (tests/solver/no_fp64_test.cpp); the other two
    // precisions are still counted there.
    if (GetParam() == Location::Device && !test::device_supports(*test_context(), p)) continue;
    Blas blas(test_context(), GetParam(), p);
    const std::size_t n = 1000;
    const double e = static_cast<double>(bytes_per_element(p));
    Vector x(test_context(), ramp(n), "x"), y(test_context(), ramp(n), "y");
    blas.axpy(0.5, x, y);
    blas.axpy(-0.5, x, y);
    blas.aypx(2.0, x, y);
    blas.scal(0.5, y);
    blas.copy(x, y);
    blas.dot(x, y);
    blas.dot_async(x, y).value();
    blas.nrm2(x);
    const auto& c = blas.counters();
    ASSERT_EQ(c.size(), 6u);
    auto expect = [&](const std::string& op, std::uint64_t calls, double flops, double elements) {
      SCOPED_TRACE(op);
      const OpCounters& k = c.at(op);
      EXPECT_EQ(k.calls, calls);
      EXPECT_EQ(k.flops, flops);
      EXPECT_EQ(k.bytes, elements * e);
      EXPECT_GT(k.seconds, 0.0);
    };
    expect("axpy", 2, 2 * 2.0 * n, 2 * 3.0 * n);
    expect("aypx", 1, 2.0 * n, 3.0 * n);
    expect("scal", 1, 1.0 * n, 2.0 * n);
    expect("copy", 1, 0.0, 2.0 * n);
    expect("dot", 2, 2 * 2.0 * n, 2 * 2.0 * n);
    expect("nrm2", 1, 2.0 * n, 1.0 * n);

    std::ostringstream report;
    blas.report(report);
    for (const char* word : {"axpy", "aypx", "scal", "copy", "dot", "nrm2", "total", "GFLOP/s", "GB/s", "share"})
      EXPECT_NE(report.str().find(word), std::string::npos) << word << " missing from:\n" << report.str();

    blas.reset_counters();
    EXPECT_TRUE(blas.counters().empty());
  }
}

TEST_P(BlasChecks, EmptyVectorsAreCountedAndGiveZero) {
  Blas blas(test_context(), GetParam(), Precision::QuasiDouble);
  Vector x(test_context(), 0, "x"), y(test_context(), 0, "y");
  blas.axpy(1.0, x, y);
  EXPECT_EQ(blas.dot(x, y), 0.0);
  EXPECT_EQ(blas.nrm2(x), 0.0);
  EXPECT_EQ(blas.counters().at("axpy").calls, 1u);
  EXPECT_EQ(blas.counters().at("dot").bytes, 0.0);
}

TEST_P(BlasChecks, RecordCountsExternalKernels) {
  // The precision plays no part in record(): the widest the device has.
  const bool double_here = GetParam() == Location::Host || test::device_supports(*test_context(), Precision::Double);
  Blas blas(test_context(), GetParam(), double_here ? Precision::Double : Precision::QuasiDouble);
  cl::Buffer buffer = test_context()->allocate(1 << 20, "record test");
  cl::Event event;
  test_context()->queue().enqueueFillBuffer(buffer, cl_uchar(0), 0, 1 << 20, nullptr, &event);
  blas.record("fused_update", 100.0, 4096.0, {event});
  blas.record("fused_update", 50.0, 1024.0);
  const OpCounters& c = blas.counters().at("fused_update");
  EXPECT_EQ(c.calls, 2u);
  EXPECT_EQ(c.flops, 150.0);
  EXPECT_EQ(c.bytes, 5120.0);
  EXPECT_GT(c.seconds, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Locations, BlasChecks, ::testing::Values(Location::Host, Location::Device),
                         [](const auto& info) { return to_string(info.param); });

TEST(Blas, UsesDeviceParamsUnlessOverridden) {
  Blas by_default(test_context(), Location::Device, Precision::Single);
  EXPECT_EQ(by_default.params().source.rfind("default:", 0) == 0 || by_default.params().source.rfind("tuned:", 0) == 0,
            true)
      << by_default.params().source;
  DeviceParams mine = default_device_params(test_context()->info());
  mine.source = "test";
  mine.blas1.variant = Blas1Variant::GridStride;
  BlasOptions options;
  options.params = mine;
  Blas overridden(test_context(), Location::Device, Precision::Single, options);
  EXPECT_EQ(overridden.params().source, "test");
  EXPECT_EQ(overridden.params().blas1.variant, Blas1Variant::GridStride);
}

TEST(Blas, InvalidParametersAreRefusedWithTheirName) {
  DeviceParams bad = default_device_params(test_context()->info());
  bad.blas1.vector_width = 3;
  BlasOptions options;
  options.params = bad;
  expect_error([&] { Blas(test_context(), Location::Device, Precision::Single, options); }, {"vector_width"});
  bad = default_device_params(test_context()->info());
  bad.reduction.work_group_size = 0;
  options.params = bad;
  expect_error([&] { Blas(test_context(), Location::Device, Precision::Single, options); },
               {"reduction.work_group_size"});
}

TEST(DeviceScalar, FromHostAndDefault) {
  EXPECT_EQ(DeviceScalar::from_host(-2.5).value(), -2.5);
  expect_error([] { DeviceScalar().value(); }, {"DeviceScalar"});
}

TEST(DeviceScalar, KeepsItsValueAfterTheVectorsChange) {
  Blas blas(test_context(), Location::Device, Precision::QuasiDouble);
  Vector x(test_context(), ramp(100), "x"), y(test_context(), ramp(100), "y");
  const DeviceScalar first = blas.dot_async(x, y);
  const double expected = blas.dot(x, y);
  blas.scal(3.0, y);
  const DeviceScalar second = blas.dot_async(x, y);  // reuses the partial-sum buffer, not the result
  EXPECT_EQ(first.value(), expected);
  EXPECT_NEAR(second.value(), 3.0 * expected, 1e-12 * expected);
  EXPECT_NE(first.buffer()(), second.buffer()());
}

// Into a buffer the caller keeps: the result lands there, in every precision (quasi-double's head and
// tail pair), and a second dot into it replaces the first; no buffer is allocated.
TEST(DeviceScalar, DotIntoAKeptBufferLandsThereWithoutAnAllocation) {
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double}) {
    if (p == Precision::Double && !test_context()->info().fp64) continue;
    Blas blas(test_context(), Location::Device, p);
    Vector x(test_context(), ramp(1025), "x"), y(test_context(), ramp(1025), "y");
    const double expected = blas.dot(x, y);
    const cl::Buffer kept = test_context()->allocate(bytes_per_element(p), "kept dot result");
    const CommandCounts before = test_context()->command_counts();
    const DeviceScalar first = blas.dot_async(x, y, kept);
    EXPECT_EQ(first.buffer()(), kept());
    EXPECT_EQ(first.value(), expected) << to_string(p);
    blas.scal(2.0, y);
    EXPECT_EQ(blas.dot_async(x, y, kept).value(), 2.0 * expected) << to_string(p);
    EXPECT_EQ((test_context()->command_counts() - before).allocations, 0u) << to_string(p);
  }
}

// The blocking dot and nrm2 read their result back before returning: after the first call they
// allocate nothing (each allocation cost as much as a dozen kernels on NVIDIA's OpenCL), in every
// precision, and their values stay right.
TEST(DeviceScalar, BlockingDotAndNrm2AllocateOnlyTheirFirstResult) {
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double}) {
    if (p == Precision::Double && !test_context()->info().fp64) continue;
    Blas blas(test_context(), Location::Device, p);
    Vector x(test_context(), ramp(1025), "x"), y(test_context(), ramp(1025), "y");
    const double expected = blas.dot(x, y);
    const double norm = blas.nrm2(x);
    const CommandCounts before = test_context()->command_counts();
    for (int k = 1; k <= 3; ++k) {
      EXPECT_NEAR(blas.dot(x, y), expected, 1e-6 * expected) << to_string(p);
      EXPECT_NEAR(blas.nrm2(x), norm, 1e-6 * norm) << to_string(p);
      blas.scal(2.0, y);
      EXPECT_NEAR(blas.dot(x, y), 2.0 * expected, 2e-6 * expected) << to_string(p);
      blas.scal(0.5, y);
    }
    EXPECT_EQ((test_context()->command_counts() - before).allocations, 0u) << to_string(p);
  }
}

}  // namespace
}  // namespace clkr
