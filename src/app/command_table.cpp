// The table of `clkr` subcommands (data, so `help` and dispatch never disagree).
#include "commands.hpp"

namespace clkr::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"solve", "solve A x = b (cg, pcg, gmres, bicgstab, ir) on a device; report timings and kernels", solve_command},
      {"cg", "clkr solve --solver cg", cg_command},
      {"info", "matrix statistics and device bytes per storage format", info_command},
      {"convert", "write a matrix (file or poisson2d:N / poisson3d:N) as Matrix Market", convert_command},
      {"bench", "benchmarks: bench cg | blas1 | spmv (clkr bench --help)", bench_command},
      {"tune", "measure the best launch parameters for a device and save them (docs/tuning.md)", tune_command},
      {"devices", "list OpenCL devices, mark the default, self-check every kernel", devices_command},
  };
  return table;
}

}  // namespace clkr::app
