// Which OpenCL device each MPI rank computes on: a selector with the rank in it, or by default the
// node's GPUs dealt out to the node's ranks.
#pragma once

#include <memory>
#include <string>

#include "clkr/dist/communicator.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr {

// `selector` with "%r" replaced by the global rank, "%l" by the node-local rank and "%%" by "%"
// ("0:%l" is the node-local rank's device on platform 0). Throws clkr::Error for another "%" sequence.
std::string expand_rank_selector(const std::string& selector, int rank, int node_rank);

// Collective: opens this rank's device. `selector` (else CLKR_DEVICE), expanded by
// expand_rank_selector, as Context::create takes it; when both are empty, the node's GPUs are dealt
// out round-robin (node-local rank modulo the number of GPUs), or the first CPU where there is none. A
// rank whose selector matches nothing, or whose device fails to open, is a CollectiveError on every
// rank naming it.
std::shared_ptr<Context> open_rank_context(Communicator& comm, const std::string& selector = "");

}  // namespace clkr
