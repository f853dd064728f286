// `clkr info` and `clkr solve` on hostile input: a 3-line file declaring 2e9 rows is answered by info at
// once (from its one entry) and refused by solve at once (exit 2), and generator specs too large to build
// are refused at once, with the need and the limit, instead of minutes of allocation. The host limit is set through
// CLKR_HOST_MEMORY_LIMIT (inherited by the program) so that the outcome does not depend on this machine's memory; the
// device limit is the device's own.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "../precision_support.hpp"
#include "app_test_support.hpp"
#include "clkr/runtime/context.hpp"

using namespace app_test;

namespace {

using ScopedEnvironment = clkr::test::ScopedEnv;

struct ScopedHostLimit : ScopedEnvironment {
  explicit ScopedHostLimit(const char* value) : ScopedEnvironment("CLKR_HOST_MEMORY_LIMIT", value) {}
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

// info answers for that file from its one entry, allocating nothing per declared row: at once, under a
// host limit (1 GB) far below the 16 GB that per-row arrays would need.
TEST(HostileInput, InfoAnswersForAHugeDeclaredRowCountAtOnce) {
  const ScopedHostLimit limit("1G");
  const Timed t = run_timed({"info", huge_rows_file(), "--json"});
  EXPECT_EQ(t.result.code, 0) << describe(t.result);
  EXPECT_LT(t.seconds, 1.0);
  for (const char* member :
       {"\"rows\":2000000000", "\"nnz\":1,", "\"empty_rows\":1999999999", "\"min_row_length\":0",
        "\"max_row_length\":1,", "\"diagonal_positive\":1,", "\"diagonal_missing\":1999999999", "\"csr\":8000000016"})
    EXPECT_NE(t.result.out.find(member), std::string::npos) << member << " in " << t.result.out;
}

TEST(HostileInput, InfoRefusesAGeneratorBeyondTheLimitAtOnce) {
  const ScopedHostLimit limit("1G");
  const Timed t = run_timed({"info", "poisson3d:500"});
  EXPECT_EQ(t.result.code, 2) << describe(t.result);
  EXPECT_LT(t.seconds, 3.0);
  EXPECT_NE(t.result.err.find("needs 11.5 GB (11482000008 bytes) of host memory"), std::string::npos) << t.result.err;
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

// Once the matrix is read, what the solve holds on the device is computed exactly (the matrix in its
// format and precision, the vectors) and refused before any upload when the context's limit
// (CLKR_DEVICE_MEMORY_LIMIT) is below it, naming the need, its parts and the limit, in CSR and in DIA;
// a limit 64 kB above the larger need (the solve's small scratch buffers) is enough for the solve in the
// format --format auto picks.
TEST(HostileInput, SolveRefusesWhatTheDeviceLimitCannotHoldBeforeUploading) {
  const clkr::DeviceInfo device = clkr::Context::create()->info();
  const std::string precision = device.fp64 ? "double" : "qdouble";
  // poisson3d:20: 8000 rows, 53600 entries, and vectors of 8000 doubles (or quasi-double heads and
  // tails): 5 (b, x, r, p, q), or 2 on a CPU device, where CG of this size runs on the host (b and x on
  // the device). CSR: 4 (8001) + 12 (53600) bytes; DIA: 7 diagonals of pitch 8000, their offsets
  // (4 x 7), a presence bit per slot (56000 / 8 bytes) and 8 (56000).
  const std::int64_t vectors = (device.type == clkr::DeviceType::Cpu ? 2 : 5) * 8 * 8000;
  const std::pair<std::string, std::int64_t> formats[] = {{"csr", 4 * 8001 + 12 * 53600 + vectors},
                                                          {"dia", 4 * 7 + 56000 / 8 + 8 * 56000 + vectors}};
  std::int64_t largest = 0;
  for (const auto& [format, expected] : formats) {
    const ScopedEnvironment limit("CLKR_DEVICE_MEMORY_LIMIT", "100K");
    const Timed t = run_timed({"solve", "poisson3d:20", "--precision", precision, "--format", format});
    EXPECT_EQ(t.result.code, 2) << describe(t.result);
    const std::string what = "solving poisson3d:20 in " + precision + " with cg needs ";
    const std::size_t at = t.result.err.find(what);
    ASSERT_NE(at, std::string::npos) << t.result.err;
    EXPECT_NE(t.result.err.find("(the matrix in " + format + " "), std::string::npos) << t.result.err;
    EXPECT_NE(t.result.err.find("100.0 kB (100000 bytes) the context may hold (CLKR_DEVICE_MEMORY_LIMIT)"),
              std::string::npos)
        << t.result.err;
    const std::size_t open = t.result.err.find('(', at + what.size());
    const std::int64_t need = std::stoll(t.result.err.substr(open + 1));
    EXPECT_EQ(need, expected) << format;
    largest = std::max(largest, need);
  }
  const std::string enough = std::to_string(largest + 64 * 1024);
  const ScopedEnvironment limit("CLKR_DEVICE_MEMORY_LIMIT", enough.c_str());
  const Timed t = run_timed({"solve", "poisson3d:20", "--precision", precision, "--json"});
  EXPECT_EQ(t.result.code, 0) << describe(t.result);
  EXPECT_NE(t.result.out.find("\"converged\":true"), std::string::npos) << t.result.out;
}

}  // namespace
