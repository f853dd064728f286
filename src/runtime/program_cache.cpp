// Program building with an in-memory map and an on-disk binary cache. A cache file holds a magic
// tag, the full key (device, driver, options, source hash) and the binary with its checksum; any
// mismatch, truncation or a binary the driver refuses makes the entry be rebuilt, never trusted.
#include "clkr/runtime/program_cache.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#if defined(__unix__)
#include <unistd.h>
#endif

#include "clkr/runtime/error.hpp"
#include "clkr/runtime/kernel_sources.hpp"

namespace clkr {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'C', 'L', 'K', 'R', 'B', 'I', 'N', '1'};

// FNV-1a, 64 bit: stable across runs and platforms (std::hash is not).
std::uint64_t fnv1a(const std::string& data, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string default_cache_dir() {
  if (const char* dir = std::getenv("CLKR_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/clkr";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/clkr";
  return "off";  // nowhere sensible to write
}

std::string build_log(const cl::Program& program, const cl::Device& device) {
  try {
    return program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
  } catch (const cl::Error&) {
    return "(no build log available)";
  }
}

void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool get_u64(const std::string& in, std::size_t& pos, std::uint64_t& v) {
  if (pos + sizeof v > in.size()) return false;
  std::copy(in.data() + pos, in.data() + pos + sizeof v, reinterpret_cast<char*>(&v));
  pos += sizeof v;
  return true;
}

// ".<pid>.<object>.<n>": distinct for every write of every cache object in every process.
std::string temp_suffix(const void* cache) {
  static std::atomic<std::uint64_t> counter{0};
  std::string suffix = ".";
#if defined(__unix__)
  suffix += std::to_string(static_cast<long long>(::getpid())) + ".";
#endif
  return suffix + hex(reinterpret_cast<std::uintptr_t>(cache)) + "." + std::to_string(counter.fetch_add(1));
}

}  // namespace

ProgramCache::ProgramCache(cl::Context context, cl::Device device, std::string cache_dir)
    : context_(std::move(context)),
      device_(std::move(device)),
      dir_(cache_dir.empty() ? default_cache_dir() : cache_dir) {
  cl::Platform platform(device_.getInfo<CL_DEVICE_PLATFORM>());
  device_key_ = platform.getInfo<CL_PLATFORM_NAME>() + "|" + device_.getInfo<CL_DEVICE_NAME>() + "|" +
                device_.getInfo<CL_DEVICE_VENDOR>() + "|" + device_.getInfo<CL_DRIVER_VERSION>() + "|" +
                device_.getInfo<CL_DEVICE_VERSION>();
}

ProgramCacheStats ProgramCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::size_t ProgramCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return programs_.size();
}

std::string ProgramCache::entry_path(const std::string& source, const std::string& options) const {
  const std::uint64_t h = fnv1a(options, fnv1a(source, fnv1a(device_key_)));
  return dir_ + "/" + hex(h) + ".clbin";
}

cl::Program ProgramCache::build_source(const std::string& source, const std::string& options, const std::string& name) {
  cl::Program program;
  try {
    program = cl::Program(context_, source);
    program.build(std::vector<cl::Device>{device_}, options.c_str());
  } catch (const cl::Error& e) {
    const std::string log = program() ? build_log(program, device_) : std::string();
    throw Error("building kernel program '" + name + "' with options '" + options + "' failed (" +
                    cl_error_name(e.err()) + "); build log:\n" + log,
                e.err(), log);
  }
  return program;
}

cl::Program ProgramCache::get(const std::string& file, const std::string& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_pair(file, options);
  if (auto it = programs_.find(key); it != programs_.end()) {
    ++stats_.memory_hits;
    return it->second;
  }
  const std::string source = expand_kernel_source(file);
  const bool disk = dir_ != "off";
  const std::string path = disk ? entry_path(source, options) : std::string();
  const std::string full_key = device_key_ + "\n" + options + "\n" + hex(fnv1a(source));

  if (disk && fs::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t pos = sizeof kMagic;
    std::uint64_t key_size = 0, binary_size = 0, checksum = 0;
    bool ok = data.size() >= sizeof kMagic && std::equal(kMagic, kMagic + sizeof kMagic, data.data()) &&
              get_u64(data, pos, key_size) && pos + key_size <= data.size() &&
              data.compare(pos, key_size, full_key) == 0;
    if (ok) {
      pos += key_size;
      ok = get_u64(data, pos, binary_size) && get_u64(data, pos, checksum) && pos + binary_size == data.size();
    }
    if (ok) {
      const std::string binary = data.substr(pos, binary_size);
      ok = fnv1a(binary) == checksum;
      if (ok) {
        try {
          cl::Program::Binaries binaries{std::vector<unsigned char>(binary.begin(), binary.end())};
          cl::Program program(context_, std::vector<cl::Device>{device_}, binaries);
          program.build(std::vector<cl::Device>{device_}, options.c_str());
          ++stats_.disk_hits;
          programs_.emplace(key, program);
          return program;
        } catch (const cl::Error&) {
          ok = false;  // the driver refused the binary: rebuild from source below
        }
      }
    }
    ++stats_.rejected_entries;
  }

  cl::Program program = build_source(source, options, file);
  ++stats_.source_builds;
  programs_.emplace(key, program);
  if (disk) {
    // Best effort: a read-only or full disk only costs a rebuild next time.
    try {
      const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
      if (!binaries.empty() && !binaries[0].empty()) {
        const std::string binary(binaries[0].begin(), binaries[0].end());
        std::string out(kMagic, sizeof kMagic);
        put_u64(out, full_key.size());
        out += full_key;
        put_u64(out, binary.size());
        put_u64(out, fnv1a(binary));
        out += binary;
        std::error_code ec;
        fs::create_directories(dir_, ec);
        // Write then rename, so a concurrent reader never sees half a file; the temporary name is
        // unique to this write (process, cache object, counter), so writers of the same entry in other
        // threads, contexts or processes never share one. Renames are atomic: the last one wins, and
        // every writer wrote the same bytes.
        const std::string tmp = path + ".tmp" + temp_suffix(this);
        bool written = false;
        {
          std::ofstream f(tmp, std::ios::binary);
          f.write(out.data(), static_cast<std::streamsize>(out.size()));
          f.close();
          written = !f.fail();  // a full disk must not leave a truncated entry in place
        }
        if (written) fs::rename(tmp, path, ec);
        if (!written || ec) fs::remove(tmp, ec);
      }
    } catch (const cl::Error&) {
    }
  }
  return program;
}

}  // namespace clkr
