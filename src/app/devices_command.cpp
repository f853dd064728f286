// `clkr devices`: lists every platform/device with the facts kernels depend on, marks the default,
// and (unless --no-check) builds every embedded kernel in every precision the device supports.
#include <iomanip>
#include <iostream>

#include "clkr/blas/device_params.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/kernel_sources.hpp"
#include "commands.hpp"

namespace clkr::app {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

// Builds every kernel file in every precision, with the options this device's parameter table gives
// it (the BLAS1 split variant, for every file written on kernels/blas1/blas1.cl's split); prints one
// line per failure and returns the count. `verbose` names each build on stderr before it starts: a
// driver whose compiler aborts the process (PoCL 5's assertions) then shows which kernel did it.
int self_check(Context& context, std::ostream& out, bool verbose) {
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
      if (verbose) std::cerr << "      building " << file << " (" << to_string(p) << ")" << std::endl;
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

}  // namespace

int devices_command(const Args& args) {
  bool check = true, verbose = false;
  for (const auto& a : args) {
    if (a == "--no-check") {
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
      try {
        auto context = Context::create(d.index_selector());
        std::cout << "      preferred work-group multiple " << context->info().preferred_work_group_multiple << "\n";
        failures += self_check(*context, std::cout, verbose);
      } catch (const Error& e) {
        ++failures;
        std::cout << "      FAIL: " << e.what() << "\n";
      }
    }
  }
  std::cout << "(* = default device)\n";
  return failures ? 1 : 0;
}

}  // namespace clkr::app
