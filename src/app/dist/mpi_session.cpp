// The program's MPI lifetime and failure rule (mpi_session.hpp).
#include "mpi_session.hpp"

#include <cstdlib>
#include <iostream>

#include "../commands.hpp"

namespace clkr::app {

bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

int run_distributed(const std::string& command, const std::function<int(const std::shared_ptr<Communicator>&)>& body) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  int code = 2;
  {
    // Each message goes out in one write: std::cerr is unbuffered, so a message streamed in pieces
    // interleaves with the other ranks' on the launcher's shared stderr, mid-line.
    const auto say = [](const std::string& message) { std::cerr << message << std::flush; };
    const std::shared_ptr<Communicator> comm = Communicator::create(MPI_COMM_WORLD);
    const std::string who = "clkr " + command + " (" + comm->rank_name() + ")";
    try {
      code = body(comm);
    } catch (const CollectiveError& e) {
      say(who + ": error: " + e.what() + "\n");
    } catch (const UsageError& e) {
      if (comm->rank() == 0) say("clkr " + command + ": " + e.what() + "\n");
    } catch (const std::exception& e) {
      say(who + ": error on this rank alone, ending every rank: " + e.what() + "\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (!initialized) MPI_Finalize();
  return code;
}

}  // namespace clkr::app
