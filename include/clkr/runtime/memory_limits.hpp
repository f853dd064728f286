// Memory budgets checked before large allocations: what a Matrix Market file or a generator spec
// declares is turned into a byte count first, and a need beyond the limit is a clkr::Error naming both,
// instead of minutes of page faults (or the kernel's OOM killer) on a 60-byte hostile file.
#pragma once

#include <cstdint>
#include <string>

namespace clkr {

struct MemoryLimit {
  std::int64_t bytes = 0;
  std::string source;  // where the number comes from, for messages: "MemAvailable in /proc/meminfo", ...
};

// The host memory a new allocation may take: the smallest of the physical memory available now
// (MemAvailable in /proc/meminfo; sysconf's available pages where there is no /proc), the process's
// address-space and data limits (ulimit -v, -d) and CLKR_HOST_MEMORY_LIMIT (bytes, or with a K, M, G or
// T suffix: a service reading untrusted input sets it lower; the tests use it to be machine-independent).
// Throws clkr::Error for a malformed CLKR_HOST_MEMORY_LIMIT.
MemoryLimit host_memory_limit();

// The message check_host_memory throws for `need_bytes`, or an empty string when it fits (for callers
// that throw their own kind of error, such as the Matrix Market reader's ParseError).
std::string host_memory_shortfall(std::int64_t need_bytes, const std::string& what);

// Throws clkr::Error "<what> needs <need> of host memory, more than the <limit> available (<source>)"
// when `need_bytes` exceeds host_memory_limit().
void check_host_memory(std::int64_t need_bytes, const std::string& what);

// "2G", "500M", "4096": a positive byte count with an optional K, M, G or T suffix (powers of 1000), as
// the CLKR_HOST_MEMORY_LIMIT and CLKR_DEVICE_MEMORY_LIMIT variables take it; throws clkr::Error naming
// `variable` for anything else.
std::int64_t parse_byte_count(const std::string& variable, const std::string& text);

// "16.0 GB (16000000008 bytes)": decimal units, with the exact count for whoever checks the arithmetic.
std::string bytes_for_message(std::int64_t bytes);

}  // namespace clkr
