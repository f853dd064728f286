// `clkr devices`: lists every platform/device with the facts kernels depend on, marks the default,
// and (unless --no-check) builds every embedded kernel in every precision the device supports.
//
// The build of each device runs in a child process (`clkr devices --check-device SEL`, on Linux): a
// driver whose compiler aborts the process instead of returning a build error (PoCL 5.0's work-group
// generation asserts on some kernels: docs/devices.md) then ends only the child, and the listing
// reports the kernel that was being built and the signal, and goes on with the next device.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "clkr/blas/device_params.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/kernel_sources.hpp"
#include "commands.hpp"

extern char** environ;  // the parent's environment, handed to the self-check process

namespace clkr::app {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

// The line written to `progress` before each build: the self-check's child always writes it, so that
// the parent can name the kernel a driver died in, and the parent shows it only with --verbose.
constexpr const char* kBuildingMarker = "      building ";

// Builds every kernel file in every precision, with the options this device's parameter table gives
// it (the BLAS1 split variant, for every file written on kernels/blas1/blas1.cl's split); prints one
// line per failure and returns the count. With `verbose`, each build is named on `progress` before it
// starts.
int self_check(Context& context, std::ostream& out, std::ostream& progress, bool verbose) {
  int built = 0, failed = 0;
  std::vector<Precision> precisions{Precision::Single, Precision::QuasiDouble};
  if (context.info().fp64) precisions.push_back(Precision::Double);
  const DeviceParams params = device_params(context.info());
  const std::string blas1_variant =
      params.blas1.variant == Blas1Variant::Chunked ? " -DCLKR_CHUNKED" : " -DCLKR_GRID_STRIDE";
  for (const auto& [file, source] : embedded_kernel_sources()) {
    const bool split = file.rfind("blas1/", 0) == 0 || source.find("\"blas1/blas1.cl\"") != std::string::npos;
    const std::string extra = split ? blas1_variant : "";
    for (Precision p : precisions) {
      if (verbose) progress << kBuildingMarker << file << " (" << to_string(p) << ")" << std::endl;
      // A test of the isolation below: the child dies here as a driver whose compiler asserts would.
      if (const char* die = std::getenv("CLKR_TEST_ABORT_BUILDING"); die != nullptr && file == die) std::abort();
      try {
        context.program(file, precision_build_option(p) + extra);
        ++built;
      } catch (const Error& e) {
        ++failed;
        out << "      FAIL " << file << " (" << to_string(p) << "): " << e.what() << "\n";
      }
    }
  }
  out << "      kernel self-check: " << built << " built, " << failed << " failed -> " << (failed ? "FAIL" : "pass")
      << "\n";
  return failed;
}

// One device's context and self-check (in the child, with every build marker on stdout); 1 if a
// build failed.
int check_device(const std::string& selector, std::ostream& progress, bool verbose) {
  try {
    auto context = Context::create(selector);
    std::cout << "      preferred work-group multiple " << context->info().preferred_work_group_multiple << "\n";
    return self_check(*context, std::cout, progress, verbose) ? 1 : 0;
  } catch (const Error& e) {
    std::cout << "      FAIL: " << e.what() << "\n";
    return 1;
  }
}

#ifdef __linux__
// The parent's side: runs `clkr devices --check-device SEL` and relays its lines (the build markers
// only with --verbose, on stderr as before). Returns the failures to count: 0 or 1.
int check_device_in_child(const std::string& selector, bool verbose) {
  int fds[2];
  if (pipe(fds) != 0) throw Error(std::string("clkr devices: pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<std::string> argv_text{"clkr", "devices", "--check-device", selector};
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    throw Error(std::string("clkr devices: cannot start the self-check process: ") + std::strerror(spawned));
  }
  std::string text, last_build;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t eol; (eol = text.find('\n')) != std::string::npos; text.erase(0, eol + 1)) {
      const std::string line = text.substr(0, eol);
      if (line.rfind(kBuildingMarker, 0) == 0) {
        last_build = line.substr(std::strlen(kBuildingMarker));
        if (verbose) std::cerr << line << std::endl;
      } else {
        std::cout << line << "\n";
      }
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::cout << "      FAIL: the OpenCL driver ended the process with signal " << sig << " (" << strsignal(sig) << ")"
              << (last_build.empty() ? std::string(" before any kernel build") : " while building " + last_build)
              << ": a defect of the driver's compiler (its message is on stderr above); this device cannot run "
                 "clkr's kernels\n"
              << "      kernel self-check: FAIL\n";
    return 1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
#endif

}  // namespace

int devices_command(const Args& args) {
  bool check = true, verbose = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--check-device" && i + 1 < args.size()) {
      return check_device(args[i + 1], std::cout, true);
    } else if (a == "--no-check") {
      check = false;
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: clkr devices [--no-check] [--verbose]\n  Lists OpenCL devices; * marks the default "
                   "(CLKR_DEVICE, else first GPU, else first CPU).\n  Without --no-check, builds every "
                   "kernel on every device and reports pass/fail;\n  --verbose names each kernel build on "
                   "stderr before it starts.\n";
      return 0;
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  const auto devices = Context::list_devices();
  if (devices.empty()) throw Error("no OpenCL platform/device found: install an OpenCL driver (e.g. pocl-opencl-icd)");
  const std::size_t chosen = Context::default_device_index();
  int failures = 0;
  std::string platform;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    if (d.platform_name != platform) {
      platform = d.platform_name;
      std::cout << "platform " << d.platform_index << ": " << platform << "\n";
    }
    std::cout << (i == chosen ? " * " : "   ") << d.index_selector() << "  " << d.name << "\n"
              << "      type " << to_string(d.type) << ", vendor " << d.vendor << ", driver " << d.driver_version
              << "\n      " << d.device_version << ", " << d.opencl_c_version << "\n      compute units "
              << d.compute_units << ", fp64 " << (d.fp64 ? "yes" : "no") << ", global memory " << mib(d.global_memory)
              << ", max allocation " << mib(d.max_allocation) << ", local memory " << d.local_memory / 1024
              << " KiB, max work-group " << d.max_work_group_size << "\n";
    if (check) {
      std::cout.flush();
#ifdef __linux__
      failures += check_device_in_child(d.index_selector(), verbose);
#else
      failures += check_device(d.index_selector(), std::cerr, verbose);
#endif
    }
  }
  std::cout << "(* = default device)\n";
  return failures ? 1 : 0;
}

}  // namespace clkr::app
