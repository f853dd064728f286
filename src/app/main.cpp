// Entry point of the `clkr` program: dispatches to a subcommand and maps failures to exit codes
// (2 with a one-line message for usage and input errors, never a stack trace).
#include <cstring>
#include <iostream>

#include "clkr/runtime/error.hpp"
#include "commands.hpp"

namespace {

void print_help(std::ostream& out) {
  out << "clkr: OpenCL sparse Krylov solvers\n\nusage: clkr <command> [options]\n\ncommands:\n";
  for (const auto& c : clkr::app::commands())
    out << "  " << c.name << std::string(12 - std::strlen(c.name), ' ') << c.summary << "\n";
  out << "\nRun `clkr <command> --help` for a command's options. Select the device with --device or "
         "CLKR_DEVICE (\"1:0\", \"nvidia\", \"pocl\", \"gpu\", \"cpu\").\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "help" || name == "--help" || name == "-h") {
    print_help(std::cout);
    return 0;
  }
  const clkr::app::Args args(argv + 2, argv + argc);
  for (const auto& c : clkr::app::commands()) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const clkr::app::UsageError& e) {
      std::cerr << "clkr " << name << ": " << e.what() << "\n";
      return 2;
    } catch (const clkr::Error& e) {
      std::cerr << "clkr " << name << ": error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "clkr " << name << ": error: " << e.what() << "\n";
      return 2;
    }
  }
  std::cerr << "clkr: unknown command '" << name << "' (see `clkr help`)\n";
  return 2;
}
