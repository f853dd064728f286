// The three launches of scan.cl (chunk sums, their prefix sums in one work-group, the chunks' scans),
// and the reads of their totals.
#include "device_scan.hpp"

#include <algorithm>
#include <climits>

#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {
namespace {

// A scan's total, left on the device at element `index` of `sums` (longs).
struct ScanTotal {
  cl::Buffer sums;
  std::size_t index = 0;
};

ScanTotal enqueue_scan(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n) {
  const std::size_t wg = kernels.params().work_group_size;
  // Chunks of whole tiles of wg; at most as many as one work-group scans in 16 passes (scan_chunk_offsets),
  // enough to fill a GPU: 1,024 of 64 work-items on 2^24 rows, each walking 16 tiles of 1,024 elements.
  const std::int64_t tiles = std::max<std::int64_t>(1, (static_cast<std::int64_t>(n) + wg - 1) / wg);
  const std::int64_t groups = std::min<std::int64_t>(tiles, static_cast<std::int64_t>(wg) * 16);
  const std::int64_t chunk = (tiles + groups - 1) / groups * static_cast<std::int64_t>(wg);
  cl::Buffer sums = kernels.array<cl_long>(static_cast<std::size_t>(groups) + 1, "scan chunk sums");
  const auto group_count = static_cast<cl_int>(groups);
  cl::Kernel chunk_sums = kernels.kernel("scan.cl", "scan_chunk_sums");
  set_args(chunk_sums, static_cast<cl_int>(n), static_cast<cl_int>(chunk), values, sums);
  cl::Kernel offsets = kernels.kernel("scan.cl", "scan_chunk_offsets");
  set_args(offsets, group_count, sums);
  cl::Kernel chunks = kernels.kernel("scan.cl", "scan_chunks");
  set_args(chunks, static_cast<cl_int>(n), static_cast<cl_int>(chunk), group_count, values, sums);
  kernels.launch(chunk_sums, static_cast<std::size_t>(groups) * wg, wg);
  kernels.launch(offsets, wg, wg);
  kernels.launch(chunks, static_cast<std::size_t>(groups) * wg, wg);
  return {sums, static_cast<std::size_t>(groups)};
}

std::int32_t checked_total(std::int64_t total, const std::string& what) {
  if (total > INT_MAX)
    throw Error("amg: " + what + " has " + std::to_string(total) +
                " entries, past the 2^31 - 1 that clkr's 32-bit indices address");
  return static_cast<std::int32_t>(total);
}

}  // namespace

std::int32_t exclusive_scan(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n,
                            const std::string& what) {
  const ScanTotal total = enqueue_scan(kernels, values, n);
  return checked_total(kernels.read<cl_long>(total.sums, total.index), what);
}

std::array<std::int32_t, 2> exclusive_scans(const SetupKernels& kernels, const cl::Buffer& first,
                                            const cl::Buffer& second, std::int32_t n, const std::string& first_what,
                                            const std::string& second_what) {
  // Both totals copied into one buffer on the device, then one read (a non-blocking read of the
  // first would not save the wait: NVIDIA's driver carries out reads into pageable memory at once).
  cl::Buffer both = kernels.array<cl_long>(2, "scan totals");
  auto& queue = kernels.context().queue();
  std::size_t slot = 0;
  for (const cl::Buffer* values : {&first, &second}) {
    const ScanTotal total = enqueue_scan(kernels, *values, n);
    queue.enqueueCopyBuffer(total.sums, both, total.index * sizeof(cl_long), slot++ * sizeof(cl_long), sizeof(cl_long));
  }
  cl_long totals[2] = {0, 0};
  queue.enqueueReadBuffer(both, CL_TRUE, 0, sizeof totals, totals);
  return {checked_total(totals[0], first_what), checked_total(totals[1], second_what)};
}

void exclusive_scan_of_known_total(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n) {
  enqueue_scan(kernels, values, n);
}

}  // namespace clkr::detail::amg
