// The subcommands of the `clkr` program. Each takes its arguments (after the subcommand name) and
// returns the process exit code: 0 success/converged, 1 did not converge / self-check failed,
// 2 usage or input error (reported by throwing UsageError or clkr::Error).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace clkr::app {

using Args = std::vector<std::string>;

// A command-line mistake: printed as one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

// Every subcommand, in the order `clkr help` lists them.
const std::vector<Command>& commands();

int devices_command(const Args& args);
int solve_command(const Args& args);
int cg_command(const Args& args);
int info_command(const Args& args);
int convert_command(const Args& args);
int bench_command(const Args& args);
int tune_command(const Args& args);

}  // namespace clkr::app
