// The `clkr` commands' distributed versions, run when an MPI launcher started the program
// (started_by_mpi_launcher): `mpirun clkr solve | cg | bench cg`.
#pragma once

#include <string>

#include "../commands.hpp"
#include "mpi_session.hpp"

namespace clkr::app {

// `clkr solve` (cg_only false) or `clkr cg` (true) under mpirun.
int dist_solve_command(const std::string& command, const Args& args, bool cg_only);
// `clkr bench cg` under mpirun: time per iteration of the distributed CG variants.
int dist_bench_cg_command(const Args& args);

}  // namespace clkr::app
