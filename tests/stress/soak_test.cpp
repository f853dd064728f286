// The soak: thousands of small solves of varied size, format, precision, solver and preconditioner in
// one process on one Context, checking that nothing accumulates: resident memory (/proc/self/statm),
// the device memory clkr holds (Context::device_memory) and the programs the cache holds stay flat once
// every configuration has run. CLKR_SOAK_SOLVES sets the number of solves (default 2000).
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "clkr/runtime/error.hpp"
#include "stress_support.hpp"

namespace {

using namespace clkr;
using clkr::test::run_job;
using clkr::test::settled_live_bytes;
using clkr::test::SolveJob;

// Resident set size in bytes (the second field of /proc/self/statm, in pages), once the C allocator
// has handed its free pages back to the kernel (malloc_trim): what the process holds, not the pages
// its arenas keep for reuse. Without the trim the floor moved with the arenas' high-water marks, which
// depend on which of PoCL's threads frees what: on a loaded 2-core machine it rose 2.7 MiB over 1,500
// solves while the heap in use rose 0.02 MiB (2026-11-25, a fresh-clone CI run).
std::uint64_t resident_bytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

// Bytes the C allocator has handed out and not had back (small blocks and mmap'ed large ones, every
// arena): exact, whatever the kernel does with pages, so it sees a leak of a few hundred bytes a solve
// that the resident size, moving in pages, cannot.
std::uint64_t heap_in_use_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::uint64_t>(info.uordblks) + static_cast<std::uint64_t>(info.hblkhd);
}

// The transparent-huge-page mode ("always", "madvise" or "never"), for the log.
std::string huge_page_mode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(file, line);
  const auto open = line.find('['), close = line.find(']');
  return open != std::string::npos && close != std::string::npos ? line.substr(open + 1, close - open - 1) : "unknown";
}

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

const std::vector<std::string> kMatrices = {"poisson3d:5", "poisson2d:16", "poisson3d:8", "poisson3d:10"};
const std::vector<Format> kFormats = {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb};
const std::vector<Precision> kPrecisions = {Precision::Single, Precision::QuasiDouble, Precision::Double};
const std::vector<SolverKind> kSolvers = {SolverKind::Cg, SolverKind::BiCgStab, SolverKind::Gmres};
const std::vector<PrecondKind> kPreconds = {PrecondKind::None, PrecondKind::Jacobi, PrecondKind::Amg};

std::size_t configurations() {
  return kMatrices.size() * kFormats.size() * kPrecisions.size() * kSolvers.size() * kPreconds.size();
}

// Solve i runs configuration i mod configurations(), so the first configurations() solves run each
// one once: after them every program key the soak can use has been asked for.
SolveJob job(std::size_t i) {
  std::size_t k = i % configurations();
  auto pick = [&k](const auto& list) {
    const auto& chosen = list[k % list.size()];
    k /= list.size();
    return chosen;
  };
  SolveJob j;
  j.format = pick(kFormats);
  j.precision = pick(kPrecisions);
  j.solver = pick(kSolvers);
  j.precond = pick(kPreconds);
  j.matrix = pick(kMatrices);
  // Well above each precision's floor on these matrices (single: CG and BiCGStab stagnate at 2-3e-6 on
  // poisson2d:16 with this b), so that whether a solve converges does not hang on the device's rounding:
  // at 1e-5, single BiCGStab converged on PoCL and stagnated on an H100. The soak is about resources.
  j.tolerance = j.precision == Precision::Single ? 1e-4 : 1e-8;
  return j;
}

std::size_t soak_solves() {
  const char* text = std::getenv("CLKR_SOAK_SOLVES");
  if (text == nullptr || *text == '\0') return 2000;
  const long n = std::strtol(text, nullptr, 10);
  if (n <= 0) throw Error("CLKR_SOAK_SOLVES must be a positive number of solves, not '" + std::string(text) + "'");
  return static_cast<std::size_t>(n);
}

// How a series measured after each solve moved after the warm-up, two ways. The peak: the most it
// reached above its value at the end of the warm-up. The floor: the least it was in the last third of
// the rest against the least in the first third; transient peaks (malloc keeping freed blocks, PoCL's
// buffers, which are host memory too) do not move a floor, a leak raises it.
struct Growth {
  double peak_mib = 0, floor_mib = 0;
};

Growth growth_after(const std::vector<std::uint64_t>& series, std::size_t warm_up) {
  const auto rest = series.begin() + static_cast<std::ptrdiff_t>(warm_up);
  const std::ptrdiff_t third = (series.end() - rest) / 3;
  const std::uint64_t peak = *std::max_element(rest, series.end());
  const std::uint64_t floor_first = *std::min_element(rest, rest + third);
  const std::uint64_t floor_last = *std::min_element(series.end() - third, series.end());
  return {mib(peak) - mib(series[warm_up - 1]), mib(floor_last) - mib(floor_first)};
}

TEST(Soak, ResidentAndDeviceMemoryAndProgramsStayFlat) {
  const std::size_t solves = soak_solves();
  // The warm-up: every configuration once, and at least a quarter of the run (the measure:
  // growth over the last three quarters).
  const std::size_t warm_up = std::max(configurations(), solves / 4);
  ASSERT_GT(solves, warm_up) << "CLKR_SOAK_SOLVES must exceed the warm-up of " << warm_up << " solves";

  // Transparent huge pages off for this process: in the kernel's "always" mode khugepaged folds the
  // allocator's heap into 2 MiB pages at its own pace, and the resident size grows with no leak at all
  // (measured 2026-11-25 on the 2-core machine with THP set to always: floor +19.6 MiB, peak +48.7 MiB
  // over 2,000 solves, where "madvise" gave +0.004 and +0.008). The soak measures what clkr keeps, not
  // how the kernel pages it; this also ignores clkr's own MADV_HUGEPAGE advice, which small solves
  // never reach.
  ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0) << "prctl(PR_SET_THP_DISABLE) failed";
  const auto context = Context::create();
  const std::uint64_t idle_device_bytes = context->device_memory().live_bytes;
  const std::uint64_t idle_device_buffers = context->device_memory().live_buffers;
  const auto start = std::chrono::steady_clock::now();
  // After each solve (reading statm and mallinfo2 costs microseconds).
  std::vector<std::uint64_t> rss(solves), heap_in_use(solves);
  std::uint64_t device_peak_after_warm_up = 0;
  std::size_t programs_after_warm_up = 0, not_converged = 0;

  for (std::size_t i = 0; i < solves; ++i) {
    const SolveJob j = job(i);
    const clkr::test::JobResult r = run_job(context, j);
    // The solve's buffers released before anything is measured, so that the device peak is each
    // solve's own and the heap holds what clkr keeps: drivers free a buffer when its last command is
    // retired, after finish() returns (NVIDIA ran the release callbacks late, and a solve started before
    // they ran added the last one's memory to its peak: 24 kB over the warm-up's in 1 of 2000 solves,
    // 2026-11-25; PoCL's buffers are heap memory, and the true residual's 1 MiB buffer for b, the
    // solve's last command, was still held at the heap's reading in 1 CI run, 2026-11-27).
    ASSERT_EQ(settled_live_bytes(*context, idle_device_bytes), idle_device_bytes) << "after solve " << i;
    if (r.status != SolveStatus::Converged) {
      ++not_converged;
      ADD_FAILURE() << "solve " << i << " (" << j.label() << "): " << to_string(r.status) << " after " << r.iterations
                    << " iterations";
    }
    rss[i] = resident_bytes();
    heap_in_use[i] = heap_in_use_bytes();
    if (i + 1 == warm_up) {
      device_peak_after_warm_up = context->device_memory().peak_bytes;
      programs_after_warm_up = context->program_cache().size();
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const DeviceMemoryUse device = context->device_memory();
  const ProgramCacheStats programs = context->program_cache().stats();

  const Growth resident = growth_after(rss, warm_up), heap = growth_after(heap_in_use, warm_up);
  std::string floors;  // the least resident size of every 250 solves, so that a log shows the trend
  for (std::size_t k = 0; k < solves; k += 250)
    floors += " " + std::to_string(*std::min_element(rss.begin() + k, rss.begin() + std::min(k + 250, solves)) >> 10);
  std::cout << "soak: " << solves << " solves (" << configurations() << " configurations, warm-up " << warm_up
            << ") in " << seconds << " s; transparent huge pages: " << huge_page_mode() << " (off for this process)\n"
            << "soak: resident " << mib(rss[warm_up - 1]) << " MiB after the warm-up; peak growth " << resident.peak_mib
            << " MiB, floor growth " << resident.floor_mib << " MiB; floors (KiB) every 250 solves:" << floors << "\n"
            << "soak: heap in use " << mib(heap_in_use[warm_up - 1]) << " MiB after the warm-up; peak growth "
            << heap.peak_mib << " MiB, floor growth " << heap.floor_mib << " MiB\n"
            << "soak: device peak " << device.peak_bytes << " bytes, live at the end " << device.live_bytes
            << "; programs " << context->program_cache().size() << ", memory hits " << programs.memory_hits << "\n";

  EXPECT_EQ(not_converged, 0u);
  // Resident memory. Measured on PoCL with 2 cores (2026-11-24), 2,000 solves in four runs: the floor
  // rose 0.5 MiB (the allocator settling: over 8,000 solves it rose 0.5 MiB by solve 2,000, then 0.04
  // MiB in the next 6,000) and the peak 2.2 to 3.2 MiB (the latter with other builds loading the
  // machine); 2026-11-25, with huge pages off and the allocator trimmed before each reading: floor
  // +0.01 MiB, peak +0.19 MiB on a loaded machine. A leak of L bytes per solve raises the floor by
  // about L x 1,000 and the peak by L x 1,500 over 2,000 solves: the resident bounds catch 1.6 KB per
  // solve by the floor and 4 KB by the peak. Checked: a 1,000-double vector (8 KB) leaked per solve
  // made the floor rise 8.7 MiB and the peak 15.1 MiB, and the test fail on both. The heap in use is
  // exact (2026-11-25: floor +0.017, peak +0.033 MiB), so its bounds catch 256 bytes per solve;
  // checked: 512 bytes leaked per solve raised its floor 0.53 MiB and failed the test, while the
  // resident floor rose 0.94 MiB, inside its bound.
  EXPECT_LT(resident.floor_mib, 1.5) << "the least resident size rose by " << resident.floor_mib << " MiB";
  EXPECT_LT(resident.peak_mib, 6.0) << "resident memory peaked " << resident.peak_mib
                                    << " MiB above its size after the warm-up";
  EXPECT_LT(heap.floor_mib, 0.25) << "the least heap in use rose by " << heap.floor_mib << " MiB";
  EXPECT_LT(heap.peak_mib, 1.0) << "the heap in use peaked " << heap.peak_mib
                                << " MiB above its size after the warm-up";
  // Device memory: nothing held between solves, and no solve after the warm-up needed more at once than
  // the largest configuration did during it.
  EXPECT_EQ(settled_live_bytes(*context, idle_device_bytes), idle_device_bytes);
  EXPECT_EQ(context->device_memory().live_buffers, idle_device_buffers);
  EXPECT_LE(device.peak_bytes, device_peak_after_warm_up);
  EXPECT_EQ(device.untracked, 0u);
  // Programs: one per distinct (file, options) key, all asked for during the warm-up; none built twice.
  EXPECT_EQ(context->program_cache().size(), programs_after_warm_up);
  EXPECT_EQ(programs.source_builds + programs.disk_hits, programs_after_warm_up);
  EXPECT_EQ(programs.rejected_entries, 0u);
}

}  // namespace
