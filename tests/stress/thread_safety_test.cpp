// The thread-safety guarantee of docs/design.md#thread-safety, tested: solves running at once in 4
// threads, each on its own Context and all on one shared Context, give bit for bit what the same solves
// give run one after another; the on-disk kernel cache written by several contexts at once holds only
// whole, valid entries. CI also runs this binary under ThreadSanitizer (.ci/run), which is what finds a
// data race that happens not to change a result here.
//
// Bit-identical is the right bar, not "close": every kernel launch has the same sizes and every
// reduction the same order whichever thread enqueues it, and the AMG setup is deterministic, so a
// difference can only come from one solve reading or writing another's data.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "clkr/runtime/error.hpp"
#include "stress_support.hpp"

namespace {

using namespace clkr;
using clkr::test::bit_identical;
using clkr::test::JobResult;
using clkr::test::run_job;
using clkr::test::settled_live_bytes;
using clkr::test::SolveJob;
namespace fs = std::filesystem;

constexpr int kThreads = 4;

// Four different systems: sizes, formats, all three precisions, three solvers, no preconditioner,
// Jacobi, Chebyshev and the AMG. Small, so that a ThreadSanitizer run stays short.
std::vector<SolveJob> varied_jobs() {
  return {
      // The fused kernels for the first (what concurrent program builds and disk-cache writes need),
      // the host path of small systems on CPU devices for the second (Auto).
      {"poisson3d:12", Format::Csr, Precision::Double, SolverKind::Cg, PrecondKind::None, 1e-8, CgPath::Fused},
      {"poisson3d:10", Format::Ell, Precision::Single, SolverKind::Cg, PrecondKind::Jacobi, 1e-5},
      {"poisson3d:11", Format::Hyb, Precision::QuasiDouble, SolverKind::BiCgStab, PrecondKind::Chebyshev, 1e-8},
      {"poisson3d:14", Format::Csr4, Precision::Double, SolverKind::Cg, PrecondKind::Amg, 1e-8},
  };
}

// What one thread ended with: its result, or the message of what it threw.
struct Outcome {
  JobResult result;
  std::string error;
};

// Runs jobs[i] in thread i on the context context_for(i) returns (called in that thread, so contexts
// can be created concurrently too). The threads wait at a gate and are released together, so their
// solves overlap as much as they can.
std::vector<Outcome> run_concurrently(const std::vector<SolveJob>& jobs,
                                      const std::function<std::shared_ptr<Context>(int)>& context_for) {
  std::vector<Outcome> outcomes(jobs.size());
  std::mutex mutex;
  std::condition_variable opened;
  bool open = false;
  std::vector<std::thread> threads;
  for (int i = 0; i < static_cast<int>(jobs.size()); ++i) {
    threads.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(mutex);
        opened.wait(lock, [&] { return open; });
      }
      try {
        outcomes[i].result = run_job(context_for(i), jobs[i]);
      } catch (const std::exception& e) {
        outcomes[i].error = e.what();
      }
    });
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
  }
  opened.notify_all();
  for (auto& t : threads) t.join();
  return outcomes;
}

std::vector<JobResult> run_sequentially(const std::vector<SolveJob>& jobs,
                                        const std::function<std::shared_ptr<Context>()>& context_for) {
  std::vector<JobResult> results;
  for (const SolveJob& job : jobs) results.push_back(run_job(context_for(), job));
  return results;
}

void expect_same(const std::vector<SolveJob>& jobs, const std::vector<JobResult>& expected,
                 const std::vector<Outcome>& got) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(jobs[i].label());
    ASSERT_EQ(got[i].error, "");
    EXPECT_EQ(got[i].result.status, expected[i].status);
    EXPECT_EQ(got[i].result.iterations, expected[i].iterations);
    EXPECT_TRUE(bit_identical(got[i].result.x, expected[i].x));
    EXPECT_EQ(got[i].result.true_residual, expected[i].true_residual);
  }
}

// The references must be real solves, or agreeing with them would prove little.
void expect_converged(const std::vector<SolveJob>& jobs, const std::vector<JobResult>& results) {
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(jobs[i].label());
    EXPECT_EQ(results[i].status, SolveStatus::Converged);
    EXPECT_GT(results[i].iterations, 1);
    EXPECT_LT(results[i].true_residual, 10 * jobs[i].tolerance);
  }
}

TEST(ThreadSafety, OwnContextPerThreadMatchesSequentialSolves) {
  const auto jobs = varied_jobs();
  const auto expected = run_sequentially(jobs, [] { return Context::create(); });
  expect_converged(jobs, expected);
  const auto got = run_concurrently(jobs, [](int) { return Context::create(); });
  expect_same(jobs, expected, got);
}

TEST(ThreadSafety, SharedContextMatchesSequentialSolves) {
  const auto context = Context::create();
  const auto jobs = varied_jobs();
  const std::uint64_t idle_bytes = context->device_memory().live_bytes;
  const auto expected = run_sequentially(jobs, [&] { return context; });
  expect_converged(jobs, expected);
  const std::size_t programs = context->program_cache().size();

  // Three rounds, for more interleavings of the same four solves.
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    expect_same(jobs, expected, run_concurrently(jobs, [&](int) { return context; }));
  }
  // The concurrent solves asked for the programs the sequential ones built: none built twice, none
  // lost; and every buffer of every solve was freed.
  EXPECT_EQ(context->program_cache().size(), programs);
  const ProgramCacheStats stats = context->program_cache().stats();
  EXPECT_EQ(stats.source_builds + stats.disk_hits, programs);
  EXPECT_EQ(settled_live_bytes(*context, idle_bytes), idle_bytes);
  EXPECT_EQ(context->device_memory().untracked, 0u);
}

TEST(ThreadSafety, SharedContextSameSolveInEveryThread) {
  // The same AMG-preconditioned solve 4 times at once: the threads build and ask for the same programs
  // and kernels by the same names at the same moment.
  const auto context = Context::create();
  const std::vector<SolveJob> jobs(kThreads, varied_jobs()[3]);
  const JobResult expected = run_job(context, jobs[0]);
  const auto got = run_concurrently(jobs, [&](int) { return context; });
  expect_same(jobs, std::vector<JobResult>(kThreads, expected), got);
}

// CLKR_CACHE_DIR pointed at a fresh directory for one test, restored afterwards. setenv is safe here
// because no other thread runs while it is called (getenv in the library only runs in threads later).
class FreshCacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clkr-thread-cache-" + std::to_string(std::random_device{}()));
    fs::remove_all(dir_);
    if (const char* old = std::getenv("CLKR_CACHE_DIR")) saved_ = old;
    setenv("CLKR_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_.empty())
      unsetenv("CLKR_CACHE_DIR");
    else
      setenv("CLKR_CACHE_DIR", saved_.c_str(), 1);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::string saved_;
};

TEST_F(FreshCacheDir, ContextsWritingTheDiskCacheAtOnceLeaveOnlyValidEntries) {
  // Four contexts compile and write the same entries at the same time (the same solve in each).
  const std::vector<SolveJob> jobs(kThreads, varied_jobs()[0]);
  const auto written = run_concurrently(jobs, [](int) { return Context::create(); });
  for (const Outcome& o : written) ASSERT_EQ(o.error, "");

  std::size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(entry.path().extension(), ".clbin") << "left behind: " << name;
    ++entries;
  }
  EXPECT_GT(entries, 2u);

  // Four more contexts read every entry back at once: each must load from disk, none found corrupt.
  std::vector<std::shared_ptr<Context>> readers(kThreads);
  const auto read = run_concurrently(jobs, [&](int i) { return readers[i] = Context::create(); });
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_EQ(read[i].error, "");
    const ProgramCacheStats stats = readers[i]->program_cache().stats();
    EXPECT_EQ(stats.rejected_entries, 0u);
    EXPECT_EQ(stats.source_builds, 0u);
    EXPECT_EQ(stats.disk_hits, readers[i]->program_cache().size());
    EXPECT_EQ(read[i].result.iterations, written[i].result.iterations);
    EXPECT_TRUE(bit_identical(read[i].result.x, written[i].result.x));
  }
}

}  // namespace
