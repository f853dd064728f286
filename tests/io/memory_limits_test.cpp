// Bounded resources on hostile input: what a Matrix Market file or a generator spec declares is turned
// into bytes before anything is allocated, and a need beyond the host's limit is refused at once with a
// clkr::Error naming the need and the limit (a 3-line file declaring 2e9 rows used to cost minutes).
// The limit is set with CLKR_HOST_MEMORY_LIMIT so that the refusals do not depend on the machine's
// memory; the limit's own sources (MemAvailable, ulimit) are checked separately.
#include "clkr/runtime/memory_limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

namespace fs = std::filesystem;

using test::ScopedEnv;

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("clkr_memory_test_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path;
}

// The message of the clkr::Error `body` throws, and the seconds it took.
std::pair<std::string, double> refusal(const std::function<void()>& body) {
  const auto start = std::chrono::steady_clock::now();
  std::string message = "(no clkr::Error thrown)";
  try {
    body();
  } catch (const Error& e) {
    message = e.what();
  }
  return {message, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

std::int64_t meminfo_kib(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string k, unit;
  std::int64_t value = 0;
  while (in >> k >> value >> unit)
    if (k == key + ":") return value;
  return -1;
}

TEST(HostMemoryLimit, IsAtMostThePhysicalMemory) {
  const MemoryLimit limit = host_memory_limit();
  EXPECT_GT(limit.bytes, 0);
  const std::int64_t total = meminfo_kib("MemTotal");
  if (total > 0) {
    EXPECT_LE(limit.bytes, total * 1024) << limit.source;
    EXPECT_FALSE(limit.source.empty());
  }
}

TEST(HostMemoryLimit, TheEnvironmentLowersItAndAMalformedValueIsAnError) {
  {
    const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "1.5G");
    const MemoryLimit limit = host_memory_limit();
    EXPECT_EQ(limit.bytes, 1500000000);
    EXPECT_EQ(limit.source, "CLKR_HOST_MEMORY_LIMIT");
  }
  for (const char* bad : {"lots", "-5G", "12Q", "0"}) {
    const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", bad);
    const auto [message, seconds] = refusal([] { host_memory_limit(); });
    EXPECT_NE(message.find("CLKR_HOST_MEMORY_LIMIT=" + std::string(bad)), std::string::npos) << message;
  }
}

TEST(HostMemoryLimit, CheckNamesTheNeedAndTheLimit) {
  const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "2000000");
  EXPECT_NO_THROW(check_host_memory(2000000, "a test"));
  const auto [message, seconds] = refusal([] { check_host_memory(16000000008, "a test"); });
  EXPECT_EQ(message,
            "a test needs 16.0 GB (16000000008 bytes) of host memory, more than the 2.0 MB (2000000 bytes) "
            "available (CLKR_HOST_MEMORY_LIMIT)");
}

// The file: 3 lines, 2e9 declared rows, one entry. Reading it needs the row offsets and the
// counting sort's cursors, 8 bytes each a row: 32 GB.
TEST(MatrixMarketMemory, AHugeDeclaredRowCountIsRefusedBeforeAllocating) {
  const fs::path path =
      write_file("huge_rows.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 1 1\n1 1 1.0\n");
  const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "1G");
  const auto [message, seconds] = refusal([&] { read_matrix_market(path.string()); });
  fs::remove(path);
  EXPECT_LT(seconds, 2.0);
  EXPECT_NE(message.find(":2:"), std::string::npos) << message;  // the size line
  EXPECT_NE(message.find("needs 32.0 GB (32000000036 bytes) of host memory"), std::string::npos) << message;
  EXPECT_NE(message.find("1.0 GB (1000000000 bytes) available (CLKR_HOST_MEMORY_LIMIT)"), std::string::npos) << message;
}

TEST(MatrixMarketMemory, AFileWithinTheLimitIsRead) {
  const fs::path path =
      write_file("small.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4.0\n3 1 -1.0\n");
  const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "1M");
  const HostCsrMatrix A = read_matrix_market(path.string());
  const MatrixMarketSize size = read_matrix_market_size(path.string());
  fs::remove(path);
  EXPECT_EQ(A.rows, 3);
  EXPECT_EQ(A.values.size(), 3u);
  EXPECT_EQ(size.rows, 3);
  EXPECT_EQ(size.cols, 3);
  EXPECT_EQ(size.entries, 2);
  EXPECT_TRUE(size.mirrored);
}

// A gzip file is inflated whole, within the host limit: 20 MB of comment lines (about 60 kB compressed)
// in front of a small matrix are refused under a 4 MB limit as soon as the text outgrows it, with the
// file and the limit named, and read under a limit they fit.
TEST(MatrixMarketMemory, AGzipFileInflatingPastTheLimitIsRefusedWhileInflating) {
  const fs::path path = fs::temp_directory_path() / ("clkr_memory_test_" + std::to_string(getpid()) + "_bomb.mtx.gz");
  std::string text = "%%MatrixMarket matrix coordinate real general\n";
  const std::string comment = "% " + std::string(97, 'x') + "\n";
  for (int i = 0; i < 200000; ++i) text += comment;
  text += "2 2 2\n1 1 1.0\n2 2 2.0\n";
  gzFile gz = gzopen(path.string().c_str(), "wb9");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  ASSERT_LT(fs::file_size(path), 200000u);
  {
    const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "4M");
    const auto [message, seconds] = refusal([&] { read_matrix_market(path.string()); });
    EXPECT_LT(seconds, 2.0);
    EXPECT_NE(message.find("inflating '" + path.string() + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("4.0 MB (4000000 bytes) available (CLKR_HOST_MEMORY_LIMIT)"), std::string::npos) << message;
  }
  const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "200M");
  EXPECT_EQ(read_matrix_market(path.string()).values, (std::vector<double>{1.0, 2.0}));
  fs::remove(path);
}

TEST(MatrixMarketMemory, TheDeclaredSizeIsReadWithoutTheBody) {
  // A body that would be refused (and is truncated): the size alone is read, at once.
  const fs::path path = write_file(
      "declared.mtx", "%%MatrixMarket matrix coordinate real general\n% a comment\n2000000000 7 900\n1 1 x\n");
  const auto start = std::chrono::steady_clock::now();
  const DeclaredSize size = declared_size(path.string());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::remove(path);
  EXPECT_TRUE(size.known);
  EXPECT_EQ(size.rows, 2000000000);
  EXPECT_EQ(size.cols, 7);
  EXPECT_EQ(size.max_nnz, 900);
  EXPECT_LT(seconds, 1.0);
  EXPECT_THROW(read_matrix_market_size("/nonexistent/clkr.mtx"), Error);
}

TEST(GeneratorMemory, DeclaredSizesFollowTheFormulas) {
  const DeclaredSize p3 = declared_size("poisson3d:10");
  EXPECT_TRUE(p3.known);
  EXPECT_EQ(p3.rows, 1000);
  EXPECT_EQ(p3.max_nnz, 7 * 1000 - 6 * 100);
  const DeclaredSize p2 = declared_size("poisson2d:5");
  EXPECT_EQ(p2.rows, 25);
  EXPECT_EQ(p2.max_nnz, 5 * 25 - 4 * 5);
  EXPECT_EQ(static_cast<std::size_t>(p3.max_nnz), poisson3d(10).values.size());
  EXPECT_EQ(declared_size("poisson3d:100000").rows, 1000000000000000);  // beyond int32, not overflowed
  EXPECT_FALSE(declared_size("poisson3d:x").known);
}

TEST(GeneratorMemory, ASizeBeyondTheLimitIsRefusedBeforeAllocating) {
  const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "1G");
  // 125e6 rows, 873.5e6 nonzeros: 8 bytes a row and 12 a nonzero, 11.5 GB of CSR.
  const auto [message, seconds] = refusal([] { load_matrix("poisson3d:500"); });
  EXPECT_LT(seconds, 1.0);
  EXPECT_NE(
      message.find("poisson3d: n = 500 (125000000 rows, 873500000 nonzeros in CSR) needs 11.5 GB (11482000008 bytes)"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("1.0 GB (1000000000 bytes) available (CLKR_HOST_MEMORY_LIMIT)"), std::string::npos) << message;
  // Beyond int32 whatever the memory: refused as before, as quickly.
  const auto [int32, int32_seconds] = refusal([] { load_matrix("poisson3d:100000"); });
  EXPECT_LT(int32_seconds, 1.0);
  EXPECT_NE(int32.find("int32 limit"), std::string::npos) << int32;
}

TEST(GeneratorMemory, APowerLawMatrixBeyondTheLimitIsRefusedBeforeAllocating) {
  const ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "1G");
  // 2e7 rows of 57 entries on average: some 1.1e9 nonzeros, 32 GB while generating.
  const auto [message, seconds] = refusal([] { load_matrix("powerlaw:20000000"); });
  EXPECT_LT(seconds, 1.0);
  EXPECT_NE(message.find("powerlaw: n = 20000000 (20000000 rows, about 11"), std::string::npos) << message;
  EXPECT_NE(message.find("1.0 GB (1000000000 bytes) available (CLKR_HOST_MEMORY_LIMIT)"), std::string::npos) << message;
}

}  // namespace
}  // namespace clkr
