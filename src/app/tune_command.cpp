// `clkr tune`: measures the launch parameters of one device (tune_device) and writes the best ones
// where device_params() finds them, so every later Blas and solver on that device uses them.
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "cli_options.hpp"
#include "clkr/blas/tuner.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"
#include "commands.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> tune_specs = {
    {"--device", "SEL", "the device to tune (default: CLKR_DEVICE, else the first GPU, else the first CPU)"},
    {"--quick", nullptr, "a tiny search at small sizes (a smoke test: written only with --out)"},
    {"--dry-run", nullptr, "measure and report, write nothing"},
    {"--out", "FILE", "write the parameters to FILE instead of the cache directory's entry for the device"},
    {"--size", "N", "BLAS1 vector elements (default 16777216, capped by the device's memory)"},
    {"--matrix", "SPEC",
     "SpMV matrix: poisson3d:N, poisson2d:N or a .mtx file\n"
     "(default poisson3d:64 on CPUs, poisson3d:128 on GPUs)"},
    {"--precision", "P", "double or qdouble (default double, qdouble without fp64), or single"},
    {"--repetitions", "N", "timed runs per configuration, the fastest counts (default 5)"},
    {"--top", "N", "configurations shown per search (default 5)"},
};

}  // namespace

int tune_command(const Args& args) {
  const ParsedArgs opts("tune", tune_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "tune [--device SEL] [--quick] [--dry-run] [--out FILE] [--size N] [--matrix SPEC]",
                "Searches the launch parameters of the BLAS1, DOT and SpMV kernels on one device (GB/s of\n"
                "each configuration, compared with the copy bandwidth) and writes the best to\n"
                "<cache dir>/params/<device>_<driver>.txt, which every later run on that device loads.\n"
                "Progress goes to stderr, the report to stdout (docs/tuning.md).",
                tune_specs);
    return 0;
  }
  if (!opts.positional().empty()) throw UsageError("unexpected argument '" + opts.positional()[0] + "'");
  if (opts.has("--dry-run") && opts.has("--out")) throw UsageError("--dry-run writes nothing; drop --out or --dry-run");

  TuneOptions options;
  options.quick = opts.has("--quick");
  options.vector_size = static_cast<std::size_t>(opts.integer("--size", 0, 1, std::int64_t{1} << 40));
  options.matrix = opts.text("--matrix");
  options.repetitions = static_cast<std::size_t>(opts.integer("--repetitions", 0, 1, 1000));
  if (opts.has("--precision")) {
    try {
      options.precision = parse_precision(opts.text("--precision"));
    } catch (const Error& e) {
      throw UsageError(std::string("--precision: ") + e.what());
    }
  }
  const auto top = static_cast<std::size_t>(opts.integer("--top", 5, 1, 1000));
  options.progress = [](const std::string& line) { std::cerr << line << "\n"; };

  const std::shared_ptr<Context> context = open_context(opts.text("--device"));
  const DeviceInfo& info = context->info();
  // A quick search is a smoke test: it must not become every later run's parameters by accident.
  const bool write = !opts.has("--dry-run") && (!options.quick || opts.has("--out"));
  const std::string cache_entry = device_params_path(info, context->program_cache().directory());
  const std::string path = opts.has("--out") ? opts.text("--out") : cache_entry;
  if (write && path.empty())  // said before the measuring, not after
    throw Error(
        "the kernel cache directory is off (CLKR_CACHE_DIR=off), so there is no default place for the "
        "parameters; give --out FILE or --dry-run");
  // Other work on the machine slows whichever configurations run beside it: worth knowing on a CPU
  // device, which shares the processors it measures.
  double load = 0;
  if (info.type == DeviceType::Cpu && ::getloadavg(&load, 1) == 1 && load >= 0.5)
    std::cerr << "note: the load average is " << std::fixed << std::setprecision(1) << load
              << " before tuning; other work shares the processors this device runs on, so measurements will "
                 "be noisier and slower than on an idle machine\n";
  const TuneResult result = tune_device(context, options);

  std::cout << "device   " << info.summary() << " [" << info.index_selector() << "], driver " << info.driver_version
            << "\n"
            << format_tune_report(result, top);
  if (!write) {
    std::cout << (opts.has("--dry-run")
                      ? "\nnot written (--dry-run)\n"
                      : "\nnot written: --quick is a smoke test, not a tuning (give --out FILE to keep its result)\n");
    return 0;
  }
  write_tuned_params(result, info, path);
  // Read back as device_params() will, so a file it would refuse is reported now, not at the next run.
  read_device_params(path, result.defaults);
  std::cout << "\nwritten to " << path;
  if (path == cache_entry)
    std::cout << " (used from now on by every run on this device and driver)\n";
  else if (cache_entry.empty())
    std::cout << " (the kernel cache is off, so runs will not load it by themselves)\n";
  else
    std::cout << " (runs load " << cache_entry << "; copy the file there to use it)\n";
  return 0;
}

}  // namespace clkr::app
