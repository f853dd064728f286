// Context::device_memory(): the bytes and buffers clkr holds on the device, counted from allocation
// until the driver reports the buffer freed (the soak test relies on it to see device leaks).
#include <gtest/gtest.h>

#include "../device_memory_support.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"

namespace {

using clkr::test::settled_live_bytes;

TEST(DeviceMemory, CountsLiveBuffersUntilTheDriverFreesThem) {
  const auto context = clkr::Context::create();
  const clkr::DeviceMemoryUse before = context->device_memory();
  {
    cl::Buffer a = context->allocate(1 << 20, "a");
    cl::Buffer b = context->allocate(0, "empty");  // stored as the minimal 16-byte buffer
    cl::Buffer a_again = a;                        // a second handle to the same buffer counts nothing
    const clkr::DeviceMemoryUse during = context->device_memory();
    EXPECT_EQ(during.live_bytes, before.live_bytes + (1 << 20) + 16);
    EXPECT_EQ(during.live_buffers, before.live_buffers + 2);
    EXPECT_GE(during.peak_bytes, during.live_bytes);
  }
  EXPECT_EQ(settled_live_bytes(*context, before.live_bytes), before.live_bytes);
  EXPECT_EQ(context->device_memory().live_buffers, before.live_buffers);
  EXPECT_GE(context->device_memory().peak_bytes, before.live_bytes + (1 << 20) + 16);
  EXPECT_EQ(context->device_memory().untracked, 0u);
}

TEST(DeviceMemory, RefusedAllocationCountsNothing) {
  const auto context = clkr::Context::create();
  const clkr::DeviceMemoryUse before = context->device_memory();
  EXPECT_THROW(context->allocate(context->info().max_allocation + 1, "too big"), clkr::Error);
  EXPECT_EQ(context->device_memory().live_bytes, before.live_bytes);
  EXPECT_EQ(context->device_memory().live_buffers, before.live_buffers);
}

TEST(DeviceMemory, VectorCopiesAreCountedAndFreedWithTheVector) {
  const auto context = clkr::Context::create();
  const std::uint64_t idle = context->device_memory().live_bytes;
  {
    clkr::Vector v(context, std::vector<double>(1000, 1.0));
    v.device(clkr::Precision::Double, clkr::Access::Read);  // uploads: one buffer of 8000 bytes
    EXPECT_EQ(context->device_memory().live_bytes, idle + 8000);
    v.device(clkr::Precision::QuasiDouble, clkr::Access::Read);  // a head and a tail of 4000 bytes each
    EXPECT_EQ(context->device_memory().live_bytes, idle + 16000);
  }
  EXPECT_EQ(settled_live_bytes(*context, idle), idle);
}

}  // namespace
