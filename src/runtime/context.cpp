// Device discovery and selection, and the Context that owns one device's OpenCL objects.
#include "clkr/runtime/context.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <regex>
#include <sstream>

#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"
#include "text.hpp"

namespace clkr {

namespace detail {
// Atomics, since the driver may report a release from its own thread while another thread allocates.
struct DeviceMemoryTracker {
  std::atomic<std::uint64_t> live_bytes{0}, live_buffers{0}, peak_bytes{0}, untracked{0};

  void add(std::uint64_t bytes) {
    const std::uint64_t now = live_bytes.fetch_add(bytes) + bytes;
    live_buffers.fetch_add(1);
    std::uint64_t peak = peak_bytes.load();
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
    }
  }
  void remove(std::uint64_t bytes) {
    live_bytes.fetch_sub(bytes);
    live_buffers.fetch_sub(1);
  }
};
}  // namespace detail

namespace {

// One per tracked buffer: what to subtract, and the tracker kept alive until the driver frees it.
struct TrackedBuffer {
  std::shared_ptr<detail::DeviceMemoryTracker> tracker;
  std::uint64_t bytes;
};

void CL_CALLBACK buffer_released(cl_mem, void* user_data) {
  std::unique_ptr<TrackedBuffer> record(static_cast<TrackedBuffer*>(user_data));
  record->tracker->remove(record->bytes);
}

// The ICD loader returns this when no platform is installed at all.
constexpr cl_int kPlatformNotFound = -1001;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  return s;
}

DeviceType device_type(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return DeviceType::Gpu;
  if (t & CL_DEVICE_TYPE_CPU) return DeviceType::Cpu;
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return DeviceType::Accelerator;
  return DeviceType::Other;
}

DeviceInfo describe(const cl::Platform& platform, const cl::Device& device, std::size_t p, std::size_t d) {
  DeviceInfo info;
  info.platform_index = p;
  info.device_index = d;
  info.platform_name = trim(platform.getInfo<CL_PLATFORM_NAME>());
  info.platform_vendor = trim(platform.getInfo<CL_PLATFORM_VENDOR>());
  info.name = trim(device.getInfo<CL_DEVICE_NAME>());
  info.vendor = trim(device.getInfo<CL_DEVICE_VENDOR>());
  info.driver_version = trim(device.getInfo<CL_DRIVER_VERSION>());
  info.device_version = trim(device.getInfo<CL_DEVICE_VERSION>());
  info.opencl_c_version = trim(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
  info.type = device_type(device.getInfo<CL_DEVICE_TYPE>());
  info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  // fp64 is usable when the device reports a double FP config (core in 1.2, or the extension).
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
  info.fp64 = device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0 || extensions.find("cl_khr_fp64") != std::string::npos;
  // CLKR_HIDE_FP64=1 makes clkr treat every device as one without doubles, so that the path of such
  // devices (quasi-double instead of double, host-side value splits) runs in CI on PoCL.
  if (const char* hide = std::getenv("CLKR_HIDE_FP64"); hide != nullptr && std::string(hide) == "1") info.fp64 = false;
  info.global_memory = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  info.max_allocation = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  info.local_memory = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  return info;
}

struct Found {
  cl::Platform platform;
  cl::Device device;
  DeviceInfo info;
};

// The one process-wide lock of the library. Debian 12's ICD loader (ocl-icd 2.3.1) initializes itself
// on the first clGetPlatformIDs without a lock: two threads creating their first contexts at once saw
// "no OpenCL platform" in one of them (tests/stress/thread_safety_test.cpp). Discovery is rare and
// cheap, so it runs one thread at a time; what follows it (creating the context) needs no lock.
std::mutex& discovery_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<Found> discover() {
  std::lock_guard<std::mutex> lock(discovery_mutex());
  std::vector<Found> found;
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    if (e.err() == kPlatformNotFound) return found;
    throw Error(std::string("clGetPlatformIDs: ") + cl_error_name(e.err()), e.err());
  }
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error& e) {
      if (e.err() == CL_DEVICE_NOT_FOUND) continue;  // a platform with no device is not an error
      throw Error(std::string("clGetDeviceIDs: ") + cl_error_name(e.err()), e.err());
    }
    for (std::size_t d = 0; d < devices.size(); ++d)
      found.push_back({platforms[p], devices[d], describe(platforms[p], devices[d], p, d)});
  }
  return found;
}

std::string device_table(const std::vector<Found>& found) {
  std::ostringstream out;
  for (const auto& f : found)
    out << "\n  " << f.info.index_selector() << "  " << f.info.platform_name << " / " << f.info.summary();
  return out.str();
}

// The position in `found` that `selector` names; an empty selector means "first GPU, else first CPU,
// else the first device".
std::size_t select(const std::vector<Found>& found, const std::string& selector) {
  if (found.empty())
    throw Error("no OpenCL platform/device found: install an OpenCL driver (e.g. Debian's pocl-opencl-icd)",
                kPlatformNotFound);
  auto first_of = [&](DeviceType t) -> std::size_t {
    for (std::size_t i = 0; i < found.size(); ++i)
      if (found[i].info.type == t) return i;
    return found.size();
  };
  if (selector.empty()) {
    std::size_t i = first_of(DeviceType::Gpu);
    if (i == found.size()) i = first_of(DeviceType::Cpu);
    return i == found.size() ? 0 : i;
  }
  const std::string want = detail::to_lower(trim(selector));
  std::smatch m;
  static const std::regex index_form(R"((\d+):(\d+))");
  std::size_t i = found.size();
  if (std::regex_match(want, m, index_form)) {
    const auto p = std::stoul(m[1]), d = std::stoul(m[2]);
    for (std::size_t k = 0; k < found.size(); ++k)
      if (found[k].info.platform_index == p && found[k].info.device_index == d) i = k;
  } else if (want == "gpu") {
    i = first_of(DeviceType::Gpu);
  } else if (want == "cpu") {
    i = first_of(DeviceType::Cpu);
  } else {
    for (std::size_t k = 0; k < found.size() && i == found.size(); ++k) {
      const auto& info = found[k].info;
      const std::string hay =
          detail::to_lower(info.platform_name + " " + info.platform_vendor + " " + info.name + " " + info.vendor);
      if (hay.find(want) != std::string::npos) i = k;
    }
  }
  if (i == found.size())
    throw Error("no OpenCL device matches '" + selector + "'; available devices:" + device_table(found));
  return i;
}

std::string effective_selector(const std::string& selector) {
  if (!selector.empty()) return selector;
  const char* env = std::getenv("CLKR_DEVICE");
  return env ? std::string(env) : std::string();
}

}  // namespace

std::vector<DeviceInfo> Context::list_devices() {
  std::vector<DeviceInfo> infos;
  for (auto& f : discover()) infos.push_back(f.info);
  return infos;
}

std::size_t Context::default_device_index() { return select(discover(), effective_selector("")); }

std::shared_ptr<Context> Context::create(const std::string& selector, const ContextOptions& options) {
  auto found = discover();
  const auto& f = found[select(found, effective_selector(selector))];
  return std::shared_ptr<Context>(new Context(f.platform, f.device, f.info, options));
}

Context::Context(const cl::Platform& platform, const cl::Device& device, DeviceInfo info, const ContextOptions& options)
    : info_(std::move(info)),
      profiling_(options.profiling),
      platform_(platform),
      device_(device),
      memory_(std::make_shared<detail::DeviceMemoryTracker>()) {
  try {
    context_ = cl::Context(device_);
    queue_ = CountedQueue(cl::CommandQueue(context_, device_, profiling_ ? CL_QUEUE_PROFILING_ENABLE : 0), &commands_);
  } catch (const cl::Error& e) {
    throw Error("creating a context on " + info_.summary() + ": " + e.what() + " " + cl_error_name(e.err()), e.err());
  }
  programs_ = std::make_unique<ProgramCache>(context_, device_);
  // The preferred work-group multiple is a kernel property: ask a trivial kernel once.
  cl::Kernel probe = kernel("runtime/probe.cl", "probe");
  info_.preferred_work_group_multiple = probe.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(device_);
  if (const char* cap = std::getenv("CLKR_DEVICE_MEMORY_LIMIT"); cap != nullptr && *cap != '\0')
    memory_cap_.store(static_cast<std::uint64_t>(parse_byte_count("CLKR_DEVICE_MEMORY_LIMIT", cap)));
}

Context::~Context() = default;

cl::Program Context::program(const std::string& file, const std::string& options) {
  return programs_->get(file, options);
}

cl::Kernel Context::kernel(const std::string& file, const std::string& kernel_name, const std::string& options) {
  cl::Program program = programs_->get(file, options);
  try {
    return cl::Kernel(program, kernel_name.c_str());
  } catch (const cl::Error& e) {
    throw Error("kernel '" + kernel_name + "' in " + file + ": " + cl_error_name(e.err()), e.err());
  }
}

cl::Buffer Context::allocate(std::size_t bytes, const std::string& what, cl_mem_flags flags) {
  auto mib = [](std::uint64_t b) { return std::to_string(b / (1024.0 * 1024.0)).substr(0, 10) + " MiB"; };
  if (bytes > info_.max_allocation)
    throw Error("buffer '" + what + "' needs " + mib(bytes) + ", more than the largest allocation " + info_.name +
                    " allows (" + mib(info_.max_allocation) + ")",
                CL_INVALID_BUFFER_SIZE);
  // OpenCL forbids zero-sized buffers; an empty vector still gets a valid handle.
  const std::size_t size = buffer_bytes(bytes);
  if (const std::uint64_t cap = memory_cap_.load(); cap != 0 && memory_->live_bytes.load() + size > cap)
    throw Error("allocating buffer '" + what + "' of " + mib(bytes) + " on " + info_.name + ": " +
                    cl_error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE) + " (out of device memory: " +
                    mib(memory_->live_bytes.load()) + " in use, the limit set for this context is " + mib(cap) + ")",
                CL_MEM_OBJECT_ALLOCATION_FAILURE);
  cl::Buffer buffer;
  const auto start = std::chrono::steady_clock::now();
  try {
    buffer = cl::Buffer(context_, flags, size);
  } catch (const cl::Error& e) {
    throw Error("allocating buffer '" + what + "' of " + mib(bytes) + " on " + info_.name + ": " +
                    cl_error_name(e.err()) + " (out of device memory?)",
                e.err());
  }
  // The driver calls buffer_released when it frees the memory (after the last handle and the last
  // queued command using it are gone), which no cl::Buffer destructor can know.
  commands_.allocations.fetch_add(1, std::memory_order_relaxed);
  commands_.allocated_bytes.fetch_add(size, std::memory_order_relaxed);
  commands_.allocation_nanoseconds.fetch_add(
      static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count()),
      std::memory_order_relaxed);
  auto record = std::make_unique<TrackedBuffer>(TrackedBuffer{memory_, size});
  memory_->add(size);
  if (clSetMemObjectDestructorCallback(buffer(), buffer_released, record.get()) == CL_SUCCESS) {
    record.release();  // buffer_released owns it now
  } else {
    memory_->remove(size);
    memory_->untracked.fetch_add(1);
  }
  return buffer;
}

void Context::reset_device_memory_peak() { memory_->peak_bytes.store(memory_->live_bytes.load()); }

std::optional<bool> Context::co_resident(const std::string& shape) const {
  std::lock_guard<std::mutex> lock(co_resident_mutex_);
  const auto it = co_resident_.find(shape);
  if (it == co_resident_.end()) return std::nullopt;
  return it->second;
}

void Context::remember_co_residency(const std::string& shape, bool resident) {
  std::lock_guard<std::mutex> lock(co_resident_mutex_);
  co_resident_[shape] = resident;
}

void Context::limit_device_memory(std::uint64_t bytes) { memory_cap_.store(bytes); }

void Context::fail_commands_after(std::uint64_t commands) { commands_until_fault_.store(commands); }

void Context::count_down_to_fault() {
  std::uint64_t left = commands_until_fault_.load();
  // Another thread may count down at the same time: exactly one of them sees 1 and throws.
  while (left != 0 && !commands_until_fault_.compare_exchange_weak(left, left - 1)) {
  }
  if (left == 1) throw cl::Error(CL_OUT_OF_RESOURCES, "a command (a fault injected by Context::fail_commands_after)");
}

DeviceMemoryUse Context::device_memory() const {
  DeviceMemoryUse use;
  use.live_bytes = memory_->live_bytes.load();
  use.live_buffers = memory_->live_buffers.load();
  use.peak_bytes = memory_->peak_bytes.load();
  use.untracked = memory_->untracked.load();
  return use;
}

void Context::finish() {
  try {
    queue_.finish();
  } catch (const cl::Error& e) {
    throw Error(std::string("clFinish: ") + cl_error_name(e.err()), e.err());
  }
}

}  // namespace clkr
