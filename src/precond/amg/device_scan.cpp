// The three launches of scan.cl: chunk sums, their prefix sums in one work-group, the chunks' scans.
#include "device_scan.hpp"

#include <algorithm>
#include <climits>

#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {

std::int32_t exclusive_scan(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n,
                            const std::string& what) {
  const std::size_t wg = kernels.params().work_group_size;
  // Chunks of whole tiles; at most as many as one work-group's tiles cover in a few passes.
  const std::int64_t tiles = std::max<std::int64_t>(1, (static_cast<std::int64_t>(n) + wg - 1) / wg);
  const std::int64_t groups = std::min<std::int64_t>(tiles, static_cast<std::int64_t>(wg) * 4);
  const std::int64_t chunk = (tiles + groups - 1) / groups * static_cast<std::int64_t>(wg);
  cl::Buffer sums = kernels.array<cl_long>(static_cast<std::size_t>(groups) + 1, "scan chunk sums");
  const auto group_count = static_cast<cl_int>(groups);
  cl::Kernel chunk_sums = kernels.kernel("scan.cl", "scan_chunk_sums");
  set_args(chunk_sums, static_cast<cl_int>(n), static_cast<cl_int>(chunk), values, sums);
  cl::Kernel offsets = kernels.kernel("scan.cl", "scan_chunk_offsets");
  set_args(offsets, group_count, sums);
  cl::Kernel chunks = kernels.kernel("scan.cl", "scan_chunks");
  set_args(chunks, static_cast<cl_int>(n), static_cast<cl_int>(chunk), group_count, values, sums);
  auto& queue = kernels.context().queue();
  queue.enqueueNDRangeKernel(chunk_sums, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * wg),
                             cl::NDRange(wg));
  queue.enqueueNDRangeKernel(offsets, cl::NullRange, cl::NDRange(wg), cl::NDRange(wg));
  queue.enqueueNDRangeKernel(chunks, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * wg),
                             cl::NDRange(wg));
  const std::int64_t total = kernels.read<cl_long>(sums, static_cast<std::size_t>(groups));
  if (total > INT_MAX)
    throw Error("amg: " + what + " has " + std::to_string(total) +
                " entries, past the 2^31 - 1 that clkr's 32-bit indices address");
  return static_cast<std::int32_t>(total);
}

}  // namespace clkr::detail::amg
