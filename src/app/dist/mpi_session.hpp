// The program under mpirun: how it knows it was started by an MPI launcher, MPI's lifetime, and the
// rule that ends every rank with a clear error and never leaves one waiting.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "clkr/dist/communicator.hpp"

namespace clkr::app {

// True when an MPI launcher (mpirun/mpiexec of Open MPI, MPICH or a PMIx launcher) started this
// process: the `clkr` commands then run their distributed versions, even with one rank.
bool started_by_mpi_launcher();

// Initializes MPI (unless already done), runs `body` on the world communicator, finalizes. Failures:
// a CollectiveError (every rank has it) is printed by every rank, naming the failed rank, and exits
// 2; a UsageError, which `body` may throw only while parsing its options (the same on every rank),
// is printed by rank 0 and exits 2; any other exception is one rank's alone: it prints it with its
// rank and calls MPI_Abort, which ends every rank rather than leave the others waiting for it.
int run_distributed(const std::string& command, const std::function<int(const std::shared_ptr<Communicator>&)>& body);

}  // namespace clkr::app
