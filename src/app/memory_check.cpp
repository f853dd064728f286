// Memory estimates of a solve before its matrix is read (see the header).
#include "memory_check.hpp"

#include <algorithm>
#include <cstdint>

#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr::app {
namespace {

// Byte counts in long double, saturated: a generator spec such as poisson3d:100000 declares 1e15 rows,
// whose products overflow int64, and only whether a need exceeds its limit matters.
std::int64_t saturated(long double bytes) { return static_cast<std::int64_t>(std::min(bytes, 9e18L)); }

}  // namespace

void check_solve_memory(const std::string& spec, const DeclaredSize& size, Precision precision,
                        const DeviceInfo& device) {
  if (!size.known) return;
  const std::int64_t rows = size.rows;
  const std::int64_t element = static_cast<std::int64_t>(bytes_per_element(precision));
  const std::string what = "solving " + spec + " (" + std::to_string(rows) + " rows) in " + to_string(precision);
  // Every solver holds at least b, x, r and p; every format at least 4 bytes of row data a row (CSR's
  // offsets, ELL's column of indices). Saturated: only whether the sum exceeds the limit matters.
  const long double device_need = static_cast<long double>(rows) * (4 + 4 * element);
  const std::int64_t need = static_cast<std::int64_t>(std::min(device_need, 9e18L));
  if (device.global_memory > 0 && need > static_cast<long double>(device.global_memory))
    throw Error(what + " needs at least " + bytes_for_message(need) + " of device memory, more than the " +
                bytes_for_message(static_cast<std::int64_t>(device.global_memory)) + " of global memory of " +
                device.name);
  // A quasi-double vector is two float arrays, so its largest buffer is that of single.
  const std::int64_t buffer = saturated(static_cast<long double>(rows) * (precision == Precision::Double ? 8 : 4));
  if (device.max_allocation > 0 && static_cast<std::uint64_t>(buffer) > device.max_allocation)
    throw Error(what + " needs a vector of " + bytes_for_message(buffer) + " on the device, more than the " +
                bytes_for_message(static_cast<std::int64_t>(device.max_allocation)) +
                " it allows in one allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) on " + device.name);
  // On the host: the CSR row offsets and the reader's row cursors (8 bytes each), and b and x in double.
  check_host_memory(saturated(static_cast<long double>(rows) * 32), what);
}

void check_device_memory(const std::string& what, Format format, const DeviceMemoryNeed& need, const Context& context) {
  const DeviceInfo& device = context.info();
  std::int64_t limit = static_cast<std::int64_t>(device.global_memory);
  std::string source = "of global memory of " + device.name;
  if (const auto cap = static_cast<std::int64_t>(context.device_memory_limit());
      cap > 0 && (limit == 0 || cap < limit)) {
    limit = cap;
    source = "the context may hold (CLKR_DEVICE_MEMORY_LIMIT)";
  }
  if (limit <= 0 || need.total() <= limit) return;
  throw Error(what + " needs " + bytes_for_message(need.total()) + " of device memory (the matrix in " +
              to_string(format) + " " + bytes_for_message(need.matrix) + ", the vectors " +
              bytes_for_message(need.vectors) + "; a preconditioner adds its own), more than the " +
              bytes_for_message(limit) + " " + source);
}

}  // namespace clkr::app
