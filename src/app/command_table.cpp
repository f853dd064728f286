// The table of `clkr` subcommands (data, so `help` and dispatch never disagree).
#include "commands.hpp"

namespace clkr::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"devices", "list OpenCL devices, mark the default, self-check every kernel", devices_command},
  };
  return table;
}

}  // namespace clkr::app
