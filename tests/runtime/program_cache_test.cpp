// Kernel embedding, build failures surfacing the build log, and the on-disk binary cache (hits
// counted, corrupt or truncated entries rebuilt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/kernel_sources.hpp"

namespace {

namespace fs = std::filesystem;

// A fresh cache directory per test, removed afterwards.
class ProgramCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clkr-cache-test-" + std::to_string(std::random_device{}()));
    fs::remove_all(dir_);
    context_ = clkr::Context::create("pocl");
  }
  void TearDown() override { fs::remove_all(dir_); }

  clkr::ProgramCache make_cache() {
    return clkr::ProgramCache(context_->cl_context(), context_->device(), dir_.string());
  }

  // Runs probe() on 4 floats to prove a program really works.
  void expect_probe_runs(const cl::Program& program) {
    cl::Kernel k(program, "probe");
    std::vector<float> host{1, 2, 3, 4};
    cl::Buffer buf(context_->cl_context(), cl_mem_flags{CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR}, std::size_t{16},
                   host.data());
    k.setArg(0, buf);
    context_->queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(4));
    context_->queue().enqueueReadBuffer(buf, CL_TRUE, 0, 16, host.data());
    EXPECT_EQ(host, (std::vector<float>{2, 3, 4, 5}));
  }

  fs::path dir_;
  std::shared_ptr<clkr::Context> context_;
};

TEST(KernelSources, EmbeddedAndIncludesExpanded) {
  const auto& sources = clkr::embedded_kernel_sources();
  ASSERT_TRUE(sources.count("common.cl"));
  ASSERT_TRUE(sources.count("runtime/probe.cl"));
  EXPECT_NE(sources.at("common.cl").find("qd_two_sum"), std::string::npos);
  EXPECT_THROW(clkr::expand_kernel_source("no/such.cl"), clkr::Error);
}

TEST_F(ProgramCacheTest, SecondBuildIsADiskHit) {
  {
    auto cache = make_cache();
    expect_probe_runs(cache.get("runtime/probe.cl", ""));
    EXPECT_EQ(cache.stats().source_builds, 1u);
    EXPECT_EQ(cache.stats().disk_hits, 0u);
    cache.get("runtime/probe.cl", "");
    EXPECT_EQ(cache.stats().memory_hits, 1u);
    EXPECT_EQ(cache.stats().source_builds, 1u);
  }
  auto second = make_cache();  // a new process would start like this
  expect_probe_runs(second.get("runtime/probe.cl", ""));
  EXPECT_EQ(second.stats().disk_hits, 1u);
  EXPECT_EQ(second.stats().source_builds, 0u);
  // Other options are another program.
  second.get("runtime/probe.cl", "-DUNUSED=1");
  EXPECT_EQ(second.stats().source_builds, 1u);
}

TEST_F(ProgramCacheTest, CorruptOrTruncatedEntryIsRebuilt) {
  std::string path;
  {
    auto cache = make_cache();
    cache.get("runtime/probe.cl", "");
    path = cache.entry_path(clkr::expand_kernel_source("runtime/probe.cl"), "");
  }
  ASSERT_TRUE(fs::exists(path));
  const auto size = fs::file_size(path);
  // Flip bytes in the middle of the binary: the checksum must catch it.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    const char junk[8] = {'g', 'a', 'r', 'b', 'a', 'g', 'e', '!'};
    f.write(junk, sizeof junk);
  }
  {
    auto cache = make_cache();
    expect_probe_runs(cache.get("runtime/probe.cl", ""));
    EXPECT_EQ(cache.stats().rejected_entries, 1u);
    EXPECT_EQ(cache.stats().source_builds, 1u);
    EXPECT_EQ(cache.stats().disk_hits, 0u);
  }
  // The rebuilt entry is good again; then truncate it.
  {
    auto cache = make_cache();
    cache.get("runtime/probe.cl", "");
    EXPECT_EQ(cache.stats().disk_hits, 1u);
  }
  fs::resize_file(path, size / 3);
  auto cache = make_cache();
  expect_probe_runs(cache.get("runtime/probe.cl", ""));
  EXPECT_EQ(cache.stats().rejected_entries, 1u);
  EXPECT_EQ(cache.stats().source_builds, 1u);
}

TEST_F(ProgramCacheTest, BuildFailureCarriesTheLog) {
  auto cache = make_cache();
  try {
    cache.build_source("__kernel void broken(__global float* x) { x[0] = undeclared_name; }", "", "broken.cl");
    FAIL() << "the build should fail";
  } catch (const clkr::Error& e) {
    EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    EXPECT_EQ(e.cl_name(), "CL_BUILD_PROGRAM_FAILURE");
    EXPECT_NE(e.build_log().find("undeclared_name"), std::string::npos) << e.build_log();
    EXPECT_NE(std::string(e.what()).find("broken.cl"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos);
  }
  // common.cl refuses to build without a precision, and says why.
  try {
    cache.get("common.cl", "");
    FAIL() << "common.cl without a precision should not build";
  } catch (const clkr::Error& e) {
    EXPECT_NE(e.build_log().find("-DCLKR_SINGLE"), std::string::npos) << e.build_log();
  }
}

TEST_F(ProgramCacheTest, DiskCacheCanBeTurnedOff) {
  clkr::ProgramCache cache(context_->cl_context(), context_->device(), "off");
  cache.get("runtime/probe.cl", "");
  EXPECT_EQ(cache.stats().source_builds, 1u);
  EXPECT_FALSE(fs::exists(dir_));
}

}  // namespace
