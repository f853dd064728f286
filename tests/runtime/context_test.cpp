// Device listing and selection (by argument and by CLKR_DEVICE), and the messages of bad selections.
#include "clkr/runtime/context.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "../precision_support.hpp"
#include "clkr/runtime/error.hpp"

namespace {

using clkr::test::ScopedEnv;

TEST(Context, ListsPoclDeviceWithFacts) {
  const auto devices = clkr::Context::list_devices();
  ASSERT_FALSE(devices.empty());
  bool pocl = false;
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GT(d.max_allocation, 0u);
    EXPECT_GE(d.global_memory, d.max_allocation);
    EXPECT_GT(d.max_work_group_size, 0u);
    if (d.platform_name.find("Portable Computing Language") != std::string::npos) {
      pocl = true;
      EXPECT_EQ(d.type, clkr::DeviceType::Cpu);
      EXPECT_TRUE(d.fp64);
    }
  }
  EXPECT_TRUE(pocl) << "the test machine is expected to have PoCL";
}

TEST(Context, SelectsByIndexSubstringAndType) {
  const auto devices = clkr::Context::list_devices();
  ScopedEnv env("CLKR_DEVICE", nullptr);
  for (const auto& d : devices) {
    auto ctx = clkr::Context::create(d.index_selector());
    EXPECT_EQ(ctx->info().name, d.name);
    EXPECT_EQ(ctx->info().index_selector(), d.index_selector());
    EXPECT_GT(ctx->info().preferred_work_group_multiple, 0u);
  }
  auto by_name = clkr::Context::create("PoCL");  // case-insensitive substring of the platform name
  EXPECT_NE(by_name->info().platform_name.find("Portable"), std::string::npos);
  auto by_type = clkr::Context::create("cpu");
  EXPECT_EQ(by_type->info().type, clkr::DeviceType::Cpu);
}

TEST(Context, DefaultIsFirstGpuElseFirstCpu) {
  ScopedEnv env("CLKR_DEVICE", nullptr);
  const auto devices = clkr::Context::list_devices();
  std::size_t expected = devices.size();
  for (std::size_t i = 0; i < devices.size() && expected == devices.size(); ++i)
    if (devices[i].type == clkr::DeviceType::Gpu) expected = i;
  for (std::size_t i = 0; i < devices.size() && expected == devices.size(); ++i)
    if (devices[i].type == clkr::DeviceType::Cpu) expected = i;
  EXPECT_EQ(clkr::Context::default_device_index(), expected);
  EXPECT_EQ(clkr::Context::create()->info().name, devices[expected].name);
}

TEST(Context, EnvironmentVariableSelects) {
  const auto devices = clkr::Context::list_devices();
  const auto& last = devices.back();
  ScopedEnv env("CLKR_DEVICE", last.index_selector().c_str());
  EXPECT_EQ(clkr::Context::default_device_index(), devices.size() - 1);
  EXPECT_EQ(clkr::Context::create()->info().index_selector(), last.index_selector());
  // An explicit argument wins over the environment.
  EXPECT_EQ(clkr::Context::create(devices.front().index_selector())->info().index_selector(),
            devices.front().index_selector());
}

TEST(Context, BadSelectionListsWhatExists) {
  ScopedEnv env("CLKR_DEVICE", nullptr);
  const auto devices = clkr::Context::list_devices();
  for (const char* bad : {"no-such-device-xyz", "7:3"}) {
    try {
      clkr::Context::create(bad);
      FAIL() << "selector " << bad << " should not match";
    } catch (const clkr::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("no OpenCL device matches '") + bad + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(devices.front().name), std::string::npos) << what;
      EXPECT_NE(what.find(devices.front().index_selector()), std::string::npos) << what;
    }
  }
  ScopedEnv bad_env("CLKR_DEVICE", "nonexistent-vendor");
  EXPECT_THROW(clkr::Context::create(), clkr::Error);
}

TEST(Context, AllocationPastTheDeviceLimitIsRefusedByName) {
  auto ctx = clkr::Context::create("pocl");
  const std::size_t too_big = ctx->info().max_allocation + 1;
  try {
    ctx->allocate(too_big, "matrix values (double)");
    FAIL() << "allocation should be refused";
  } catch (const clkr::Error& e) {
    EXPECT_EQ(e.code(), CL_INVALID_BUFFER_SIZE);
    EXPECT_EQ(e.cl_name(), "CL_INVALID_BUFFER_SIZE");
    EXPECT_NE(std::string(e.what()).find("matrix values (double)"), std::string::npos) << e.what();
  }
  cl::Buffer empty = ctx->allocate(0, "empty vector");
  EXPECT_NE(empty(), nullptr);
}

TEST(Context, SeveralContextsCoexist) {
  auto a = clkr::Context::create("pocl");
  auto b = clkr::Context::create("pocl");
  EXPECT_NE(a->cl_context()(), b->cl_context()());
  a->kernel("runtime/probe.cl", "probe");
  b->kernel("runtime/probe.cl", "probe");
}

// Every command through Context::queue() is counted by kind, and only in the counts of its own Context.
TEST(Context, CountsItsCommands) {
  auto ctx = clkr::Context::create("pocl");
  auto other = clkr::Context::create("pocl");
  const clkr::CommandCounts before = ctx->command_counts();
  cl::Buffer buffer = ctx->allocate(64, "counted");
  cl::Buffer copy = ctx->allocate(64, "counted copy");
  cl::Kernel probe = ctx->kernel("runtime/probe.cl", "probe");
  probe.setArg(0, buffer);
  auto& queue = ctx->queue();
  queue.enqueueNDRangeKernel(probe, cl::NullRange, cl::NDRange(1), cl::NullRange);
  queue.enqueueFillBuffer(buffer, cl_int{7}, 0, 64);
  queue.enqueueCopyBuffer(buffer, copy, 0, 0, 64);
  int host[16] = {};
  queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, 16, host);
  queue.enqueueReadBuffer(copy, CL_TRUE, 0, 64, host);
  ctx->finish();
  const clkr::CommandCounts c = ctx->command_counts() - before;
  EXPECT_EQ(c.launches, 1u);
  EXPECT_EQ(c.fills, 1u);
  EXPECT_EQ(c.copies, 1u);
  EXPECT_EQ(c.writes, 1u);
  EXPECT_EQ(c.write_bytes, 16u);
  EXPECT_EQ(c.reads, 1u);
  EXPECT_EQ(c.read_bytes, 64u);
  EXPECT_EQ(c.waits, 2u);  // the blocking read and finish(); the write did not block
  EXPECT_EQ(c.allocations, 2u);
  EXPECT_EQ(c.allocated_bytes, 128u);
  EXPECT_EQ(host[0], 7);
  EXPECT_EQ(other->command_counts().launches, 0u);
  EXPECT_EQ(other->command_counts().allocations, 0u);
}

}  // namespace
