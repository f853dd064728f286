// Builds OpenCL programs from the embedded kernel sources, once per (file, options), and keeps their
// binaries on disk keyed by device, driver, source hash and options so a later process skips the
// compiler. A corrupt or stale cache file is ignored and rebuilt, never trusted.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "clkr/runtime/opencl.hpp"

namespace clkr {

struct ProgramCacheStats {
  std::size_t memory_hits = 0;       // served from this process's map
  std::size_t disk_hits = 0;         // loaded from a binary on disk
  std::size_t source_builds = 0;     // compiled from source
  std::size_t rejected_entries = 0;  // disk entries found corrupt or unusable and rebuilt
};

// Thread-safe: get() and the accessors lock one mutex, so threads sharing a Context share its
// programs (a program is built once; kernels are created from it by each user, never shared).
class ProgramCache {
 public:
  // `cache_dir` empty means the default: $CLKR_CACHE_DIR, else $XDG_CACHE_HOME/clkr, else
  // ~/.cache/clkr; "off" disables the disk cache.
  ProgramCache(cl::Context context, cl::Device device, std::string cache_dir = "");

  // Throws clkr::Error with CL_BUILD_PROGRAM_FAILURE and the build log when compilation fails.
  cl::Program get(const std::string& file, const std::string& options);
  // Builds an arbitrary source (not cached on disk); used for device probes and tests.
  cl::Program build_source(const std::string& source, const std::string& options, const std::string& name);

  // A snapshot (another thread may be building).
  ProgramCacheStats stats() const;
  // Programs held in memory: one per distinct (file, options) key asked for.
  std::size_t size() const;
  const std::string& directory() const { return dir_; }
  // The file a (source, options) pair is stored in.
  std::string entry_path(const std::string& source, const std::string& options) const;

 private:
  cl::Context context_;
  cl::Device device_;
  std::string dir_;
  std::string device_key_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, cl::Program> programs_;
  ProgramCacheStats stats_;
};

}  // namespace clkr
