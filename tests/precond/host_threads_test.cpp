// Tests that the library's host loops hand the cores back before the device's turn: after a parallel
// loop, OpenMP's idle workers spin for milliseconds, and on a GPU machine that spin delayed the next
// blocking read of the OpenCL driver by 3-6 ms (src/runtime/host_threads.hpp). Measured as the CPU
// time the OpenMP workers spend while the test's thread sleeps: a spinning worker shows up as
// milliseconds of it, a released one (ended, or asleep) as none.
//
// Only the workers count, not the whole process: PoCL's threads and the sanitizers' run beside them,
// and under load their CPU varied by more than a missed release leaves (CI's ASan pass, two test
// binaries on 2 cores, 2026-11-29: 3.1 ms in a quiet process whose release was in place, against a
// 2.1 ms limit). The workers are the threads started after the test's baseline: a release ends every
// worker, so the threads alive right after one are the process's own (the test's, PoCL's, the ICD
// loader's), and any thread started later is the OpenMP runtime's (a new thread of PoCL's would count
// too: the tests would then fail rather than pass vacuously). Linux gives each thread's CPU time
// in nanoseconds (/proc/self/task/<tid>/schedstat, first field).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/amg.hpp"
#include "clkr/precond/chebyshev.hpp"
#include "precond/amg/coarse_solver.hpp"
#include "precond_test_support.hpp"
#include "runtime/host_threads.hpp"

namespace clkr {
namespace {

struct ThreadCpu {
  std::string name;
  double seconds = 0;
};

// Every thread of the process by id, with its name and CPU seconds; empty where /proc does not say.
std::map<long, ThreadCpu> thread_cpu() {
  std::map<long, ThreadCpu> threads;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream schedstat(entry.path() / "schedstat");
    double nanoseconds = 0;
    if (!(schedstat >> nanoseconds)) continue;  // the thread ended meanwhile
    ThreadCpu thread;
    thread.seconds = 1e-9 * nanoseconds;
    std::ifstream(entry.path() / "comm") >> thread.name;
    threads[std::stol(entry.path().filename().string())] = thread;
  }
  return threads;
}

std::set<long> thread_ids() {
  std::set<long> ids;
  for (const auto& [id, thread] : thread_cpu()) ids.insert(id);
  return ids;
}

// The CPU the workers use in 40 ms, and which threads used it.
struct WorkerCpu {
  double seconds = 0;
  std::string threads;  // "id name ms" of each worker that used any
};

std::ostream& operator<<(std::ostream& out, const WorkerCpu& cpu) {
  return out << cpu.seconds * 1e3 << " ms of worker CPU in 40 ms (" << (cpu.threads.empty() ? "none" : cpu.threads)
             << ")";
}

// CPU seconds of the threads not in `resident` (the OpenMP workers) while this one sleeps 40 ms.
WorkerCpu worker_cpu_while_sleeping(const std::set<long>& resident) {
  const std::map<long, ThreadCpu> before = thread_cpu();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  WorkerCpu cpu;
  std::ostringstream threads;
  for (const auto& [id, thread] : thread_cpu()) {
    if (resident.count(id)) continue;
    const auto earlier = before.find(id);
    const double used = thread.seconds - (earlier == before.end() ? 0.0 : earlier->second.seconds);
    cpu.seconds += used;
    if (used > 0)
      threads << (threads.tellp() == 0 ? "" : ", ") << id << " " << thread.name << " " << used * 1e3 << " ms";
  }
  cpu.threads = threads.str();
  return cpu;
}

// A parallel loop of the test's own, which leaves the OpenMP runtime's workers idle (and spinning).
double run_parallel_loop() {
  std::vector<double> v(1 << 20, 1.0);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 1.0001 + 1.0;
  return v[v.size() / 2];
}

// Right after a parallel loop the spinning workers use 4-10 ms of CPU in the 40 ms (the development VM
// under ASan, alone and beside another test binary), and the releases this test guards, removed one
// at a time, left 1.0-9.3 ms (a spin partly over by the time of the sleep shows less); released
// workers have ended and use none. So the library's calls may leave 1 ms, and a control loop must
// show 3 ms for the test to run: without workers (no OpenMP, one thread) or with a runtime that does
// not spin (OMP_WAIT_POLICY=passive) there is nothing to detect, and the tests say so instead of
// passing vacuously.
constexpr double kSpinSeconds = 0.003;   // what a control loop's workers must show
constexpr double kLimitSeconds = 0.001;  // what the library's calls may leave

// Fails the test where the workers use kLimitSeconds or more of CPU in the next 40 ms.
void expect_no_spinning_worker(const std::set<long>& resident, const char* when) {
  const WorkerCpu cpu = worker_cpu_while_sleeping(resident);
  EXPECT_LT(cpu.seconds, kLimitSeconds) << when << ": " << cpu;
}

// The process's own threads (those alive after a release), once the context's exist; skips the test
// where workers do not spin or /proc does not give threads' CPU times.
void resident_threads_or_skip(std::set<long>* resident) {
#ifndef _OPENMP
  GTEST_SKIP() << "built without OpenMP: no workers";
#else
  if (omp_get_max_threads() < 2) GTEST_SKIP() << "one OpenMP thread: no workers";
  if (thread_cpu().empty()) GTEST_SKIP() << "no /proc/self/task/<tid>/schedstat: threads' CPU times unknown";
  test::context()->finish();  // the context's threads start before the baseline
  EXPECT_GT(run_parallel_loop(), 0.0);
  detail::release_host_threads();
  *resident = thread_ids();
  const WorkerCpu quiet = worker_cpu_while_sleeping(*resident);
  EXPECT_GT(run_parallel_loop(), 0.0);
  const WorkerCpu control = worker_cpu_while_sleeping(*resident);
  std::cout << "[ levels   ] after a release " << quiet << "; after a parallel loop " << control << "\n";
  if (control.seconds < kSpinSeconds)
    GTEST_SKIP() << "after a parallel loop the workers used " << control.seconds * 1e3
                 << " ms of CPU in 40 ms: this OpenMP runtime does not spin, nothing to detect";
  EXPECT_LT(quiet.seconds, kLimitSeconds) << "a release left workers running";
  detail::release_host_threads();
#endif
}

TEST(HostThreads, ReleaseEndsTheSpinOfIdleWorkers) {
  std::set<long> resident;
  resident_threads_or_skip(&resident);
  if (testing::Test::IsSkipped()) return;
  EXPECT_GT(run_parallel_loop(), 0.0);
  detail::release_host_threads();
  expect_no_spinning_worker(resident, "after a release");
  // The next parallel loop starts new workers.
  EXPECT_GT(run_parallel_loop(), 0.0);
}

TEST(HostThreads, NoWorkerSpinsAfterTheCoarsestLevelsDenseInverse) {
  std::set<long> resident;
  resident_threads_or_skip(&resident);
  if (testing::Test::IsSkipped()) return;
  // 512 rows: the inverse's columns run in parallel (from ~256 rows).
  const HostCsrMatrix coarsest = poisson3d(8);
  const detail::amg::DenseInverse inverse = detail::amg::dense_inverse(coarsest, 3);
  EXPECT_EQ(inverse.inverse.rows, coarsest.rows);
  expect_no_spinning_worker(resident, "after the dense inverse");
}

TEST(HostThreads, NoWorkerSpinsAfterUpdateValuesOrAnAmgUpdate) {
  std::set<long> resident;
  resident_threads_or_skip(&resident);
  if (testing::Test::IsSkipped()) return;
  // DIA: update_values checks the values (all cores for large matrices) and scatters them on the device.
  const HostCsrMatrix host = poisson3d(16);
  Matrix A(test::context(), host, Format::Dia);
  test::context()->finish();
  expect_no_spinning_worker(resident, "after the Matrix upload");
  std::vector<double> values = host.values;
  for (double& v : values) v *= 2.0;
  EXPECT_GT(run_parallel_loop(), 0.0);  // workers spinning when the update starts, as after an assembly
  A.update_values(values);
  test::context()->finish();
  expect_no_spinning_worker(resident, "after Matrix::update_values");

  // The AMG's setup and update end with the coarsest level's dense inverse (parallel columns) and the
  // smoothers' waits for the device. The device setup (which a GPU gets by default) also updates on
  // the device, where nothing but the dense inverse runs on the host (the host setup's uploads release
  // the workers anyway).
  const Blas blas(test::context(), Location::Device,
                  test::context()->info().fp64 ? Precision::Double : Precision::Single);
  AmgOptions options;
  options.setup_on = AmgOptions::SetupOn::Device;
  // A device without fp64 builds on the host instead, whose aggregates are smaller: with the default
  // coarse size (500) its coarsening of these 4,096 rows went one level further, to 63 rows. Stopping
  // at 1,000 rows leaves the coarsest level large enough for the dense inverse's columns to run in
  // parallel (from ~256 rows) whichever setup runs.
  options.coarse_size = 1000;
  Amg M(blas, A, options);
  ASSERT_GT(M.levels().back().rows, 256);
  test::context()->finish();
  expect_no_spinning_worker(resident, "after the AMG setup");
  for (double& v : values) v *= 1.5;
  A.update_values(values);
  M.update(A);
  test::context()->finish();
  expect_no_spinning_worker(resident, "after the AMG update");
}

TEST(HostThreads, NoWorkerSpinsAfterAHostDiagonalScanForTheDevice) {
  std::set<long> resident;
  resident_threads_or_skip(&resident);
  if (testing::Test::IsSkipped()) return;
  // SELL's slices are scanned on the host (so is every format on a device without fp64); Gershgorin's
  // bound instead of Lanczos steps leaves the scan as the setup's one host loop before the device's turn.
  const HostCsrMatrix host = poisson3d(24);
  Matrix A(test::context(), host, Format::Sell);
  const Blas blas(test::context(), Location::Device, Precision::Single);
  ChebyshevOptions options;
  options.eigen_iterations = 0;
  options.lower_ratio = 1.0 / 30;
  EXPECT_GT(run_parallel_loop(), 0.0);
  Chebyshev M(blas, A, options);
  test::context()->finish();
  expect_no_spinning_worker(resident, "after the Chebyshev setup");
}

}  // namespace
}  // namespace clkr
