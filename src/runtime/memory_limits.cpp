// Host memory limits (see the header). MemAvailable rather than MemFree: the kernel's own estimate of
// what can be allocated without swapping, page cache included, which is what a reader about to fill
// gigabytes can really get.
#include "clkr/runtime/memory_limits.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();

// MemAvailable from /proc/meminfo in bytes, or -1 where the file or the line is missing.
std::int64_t meminfo_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

}  // namespace

std::int64_t parse_byte_count(const std::string& variable, const std::string& text) {
  std::size_t used = 0;
  long double value = 0;
  try {
    value = std::stold(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string suffix = text.substr(used);
  long double scale = 1;
  if (suffix.size() == 1) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    scale = c == 'K' ? 1e3L : c == 'M' ? 1e6L : c == 'G' ? 1e9L : c == 'T' ? 1e12L : 0;
  } else if (!suffix.empty()) {
    scale = 0;
  }
  if (used == 0 || scale == 0 || !(value > 0) || value * scale > 9e18L)
    throw Error(variable + "=" + text + ": expected a positive number of bytes, optionally with K, M, G or T");
  return static_cast<std::int64_t>(value * scale);
}

namespace {

void lower(MemoryLimit& limit, std::int64_t bytes, const std::string& source) {
  if (bytes >= 0 && bytes < limit.bytes) limit = {bytes, source};
}

}  // namespace

MemoryLimit host_memory_limit() {
  MemoryLimit limit{kUnlimited, "no limit known"};
  const std::int64_t available = meminfo_available();
  if (available >= 0) {
    lower(limit, available, "physical memory available, MemAvailable in /proc/meminfo");
  } else {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
      lower(limit, static_cast<std::int64_t>(pages) * page, "physical memory available, sysconf(_SC_AVPHYS_PAGES)");
  }
  const std::pair<int, const char*> rlimits[] = {{RLIMIT_AS, "address-space limit, ulimit -v"},
                                                 {RLIMIT_DATA, "data-segment limit, ulimit -d"}};
  for (const auto& [resource, source] : rlimits) {
    rlimit r{};
    if (getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < static_cast<rlim_t>(kUnlimited))
      lower(limit, static_cast<std::int64_t>(r.rlim_cur), source);
  }
  if (const char* text = std::getenv("CLKR_HOST_MEMORY_LIMIT"); text != nullptr && *text != '\0')
    lower(limit, parse_byte_count("CLKR_HOST_MEMORY_LIMIT", text), "CLKR_HOST_MEMORY_LIMIT");
  return limit;
}

std::string host_memory_shortfall(std::int64_t need_bytes, const std::string& what) {
  const MemoryLimit limit = host_memory_limit();
  if (need_bytes <= limit.bytes) return {};
  return what + " needs " + bytes_for_message(need_bytes) + " of host memory, more than the " +
         bytes_for_message(limit.bytes) + " available (" + limit.source + ")";
}

void check_host_memory(std::int64_t need_bytes, const std::string& what) {
  if (std::string message = host_memory_shortfall(need_bytes, what); !message.empty()) throw Error(message);
}

std::string bytes_for_message(std::int64_t bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double scaled = static_cast<double>(bytes);
  int unit = 0;
  while (scaled >= 1000 && unit < 6) {
    scaled /= 1000;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " bytes";
  char text[64];
  std::snprintf(text, sizeof text, "%.1f %s (%lld bytes)", scaled, units[unit], static_cast<long long>(bytes));
  return text;
}

}  // namespace clkr
