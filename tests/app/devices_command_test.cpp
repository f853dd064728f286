// `clkr devices`: lists the PoCL device with its facts, marks a default, and its kernel self-check
// builds every embedded kernel in every precision (exit 0); unknown options are usage errors.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <regex>
#include <string>

#include "app_test_support.hpp"

namespace app_test {
namespace {

TEST(DevicesCommand, ListsDevicesAndEveryKernelBuilds) {
  const Result r = run_clkr({"devices"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("Portable Computing Language"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" * "), std::string::npos) << "no default marked:\n" << r.out;
  EXPECT_NE(r.out.find("fp64 yes"), std::string::npos) << r.out;
  const std::regex check(R"(kernel self-check: (\d+) built, 0 failed -> pass)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, check)) << r.out;
  EXPECT_GE(std::stoi(m[1]), 30) << "every kernel file in three precisions";
}

// A driver whose compiler aborts the process (PoCL 5.0 does on some kernels) ends only the self-check's
// child process: the listing names the kernel and the signal, exits 1, and finishes. The abort is
// injected where the build of one file starts (CLKR_TEST_ABORT_BUILDING).
TEST(DevicesCommand, ADriverThatAbortsInItsCompilerIsReportedNotACrash) {
#ifdef __linux__
  setenv("CLKR_TEST_ABORT_BUILDING", "spmv/csr_balanced.cl", 1);
  const Result r = run_clkr({"devices"});
  unsetenv("CLKR_TEST_ABORT_BUILDING");
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_NE(r.out.find("FAIL: the OpenCL driver ended the process with signal " + std::to_string(SIGABRT)),
            std::string::npos)
      << describe(r);
  EXPECT_NE(r.out.find("while building spmv/csr_balanced.cl (single)"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("(* = default device)"), std::string::npos) << "the listing must finish:\n" << describe(r);
  // Without the fault the same listing passes (the previous test), so the child's failure is what failed.
#else
  GTEST_SKIP() << "the self-check runs in a child process on Linux only";
#endif
}

TEST(DevicesCommand, NoCheckSkipsBuildsAndBadOptionIsUsageError) {
  const Result quick = run_clkr({"devices", "--no-check"});
  ASSERT_EQ(quick.code, 0) << describe(quick);
  EXPECT_EQ(quick.out.find("self-check"), std::string::npos);
  const Result bad = run_clkr({"devices", "--bogus"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown option '--bogus'"), std::string::npos) << describe(bad);
}

}  // namespace
}  // namespace app_test
