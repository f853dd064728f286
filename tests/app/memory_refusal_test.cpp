// `clkr info` and `clkr solve` on hostile input: a 3-line file declaring 2e9 rows, and generator specs
// too large to build, are refused at once (exit 2) with the need and the limit, instead of minutes of
// allocation. The host limit is set through CLKR_HOST_MEMORY_LIMIT (inherited by the program) so that the
// outcome does not depend on this machine's memory; the device limit is the device's own.
#include <cstdlib>
#include <optional>
#include <string>

#include "app_test_support.hpp"
#include "clkr/runtime/context.hpp"

using namespace app_test;

namespace {

class ScopedHostLimit {
 public:
  explicit ScopedHostLimit(const char* value) {
    if (const char* old = std::getenv("CLKR_HOST_MEMORY_LIMIT")) saved_ = old;
    setenv("CLKR_HOST_MEMORY_LIMIT", value, 1);
  }
  ~ScopedHostLimit() {
    if (saved_)
      setenv("CLKR_HOST_MEMORY_LIMIT", saved_->c_str(), 1);
    else
      unsetenv("CLKR_HOST_MEMORY_LIMIT");
  }

 private:
  std::optional<std::string> saved_;
};

struct Timed {
  Result result;
  double seconds;
};

Timed run_timed(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  Result r = run_clkr(args);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

std::string huge_rows_file() {
  const fs::path path = scratch_dir() / "huge_rows.mtx";
  write_text(path, "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1.0\n");
  return path.string();
}

TEST(HostileInput, InfoRefusesAHugeDeclaredRowCountAtOnce) {
  const ScopedHostLimit limit("1G");
  const Timed t = run_timed({"info", huge_rows_file()});
  EXPECT_EQ(t.result.code, 2) << describe(t.result);
  EXPECT_LT(t.seconds, 3.0);
  EXPECT_NE(t.result.err.find("huge_rows.mtx:2:"), std::string::npos) << t.result.err;
  EXPECT_NE(t.result.err.find("needs 16.0 GB (16000000032 bytes) of host memory"), std::string::npos) << t.result.err;
  EXPECT_NE(t.result.err.find("1.0 GB (1000000000 bytes) available (CLKR_HOST_MEMORY_LIMIT)"), std::string::npos)
      << t.result.err;
}

TEST(HostileInput, InfoRefusesAGeneratorBeyondTheLimitAtOnce) {
  const ScopedHostLimit limit("1G");
  const Timed t = run_timed({"info", "poisson3d:500"});
  EXPECT_EQ(t.result.code, 2) << describe(t.result);
  EXPECT_LT(t.seconds, 3.0);
  EXPECT_NE(t.result.err.find("needs 11.0 GB (10982000004 bytes) of host memory"), std::string::npos) << t.result.err;
  EXPECT_NE(t.result.err.find("available (CLKR_HOST_MEMORY_LIMIT)"), std::string::npos) << t.result.err;
}

// Every solver holds at least b, x, r, p (8 bytes an element in double or quasi-double) and 4 bytes of
// row data a row: 2e9 rows need at least 72 GB on the device, which is refused where the device has less.
TEST(HostileInput, SolveRefusesWhatTheDeviceCannotHoldAtOnce) {
  const auto device = clkr::Context::create()->info();
  const std::string precision = device.fp64 ? "double" : "qdouble";
  for (const std::string& spec : {huge_rows_file(), std::string("poisson3d:1000")}) {
    SCOPED_TRACE(spec);
    const std::int64_t rows = spec.find("poisson") != std::string::npos ? 1000000000 : 2000000000;
    if (static_cast<double>(device.global_memory) >= 36.0 * rows)
      GTEST_SKIP() << device.name << " has " << device.global_memory << " bytes of global memory: " << 36 * rows
                   << " would fit (the host check below covers such devices)";
    const Timed t = run_timed({"solve", spec, "--precision", precision});
    EXPECT_EQ(t.result.code, 2) << describe(t.result);
    EXPECT_LT(t.seconds, 3.0);
    const std::string need = "needs at least " + std::string(rows == 1000000000 ? "36.0 GB (36000000000 bytes)"
                                                                                : "72.0 GB (72000000000 bytes)");
    EXPECT_NE(t.result.err.find(need + " of device memory, more than the"), std::string::npos) << t.result.err;
    EXPECT_NE(t.result.err.find("of global memory of " + device.name), std::string::npos) << t.result.err;
  }
}

// On any device: with the host limit low, a solve of the hostile file is refused at once, by the device
// check or the host one, never after reading and allocating.
TEST(HostileInput, SolveRefusesTheHugeFileAtOnceOnAnyDevice) {
  const ScopedHostLimit limit("1G");
  const Timed t = run_timed({"solve", huge_rows_file(), "--precision", "single"});
  EXPECT_EQ(t.result.code, 2) << describe(t.result);
  EXPECT_LT(t.seconds, 3.0);
  EXPECT_NE(
      t.result.err.find("solving " + (scratch_dir() / "huge_rows.mtx").string() + " (2000000000 rows) in single needs"),
      std::string::npos)
      << t.result.err;
  EXPECT_NE(t.result.err.find("more than the"), std::string::npos) << t.result.err;
}

}  // namespace
