// clkr::HaloExchange: the communication of a distributed SpMV. start() packs the values the
// neighbours need on the device, queues their read into pinned host memory and posts the receives;
// the caller then queues the local-block SpMV, which the device runs while finish() sends, waits and
// queues the received values into the halo vector for the halo-block SpMV (GPU-aware MPI is not
// assumed: every message goes through host memory). The read and the write go through a second,
// transfer queue, so that they run beside the local-block SpMV instead of before and after it on the
// compute queue (docs/distributed.md measures what that hid).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/dist/communicator.hpp"
#include "clkr/dist/halo_pattern.hpp"

namespace clkr {

class HaloExchange {
 public:
  HaloExchange(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, HaloPattern pattern);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  const HaloPattern& pattern() const { return pattern_; }

  // The exchange of x (this rank's slice) in blas's precision: receives posted, the send values packed
  // by blas (kernels/dist/halo.cl) and their read-back queued and flushed. Returns at once.
  void start(Blas& blas, Vector& x);
  // Completes the exchange start() began: sends, waits for every message, and queues the write of the
  // received values into `halo` (pattern().halo_size() elements; its device copy in the precision of
  // start() becomes the valid one). Device work that fails is deferred on the communicator (see
  // Communicator::deferred): the messages still go, so no neighbour waits forever.
  void finish(Vector& halo);
  // The same exchange on the host in double (no device involved): the halo values of x_local.
  std::vector<double> exchange_host(const std::vector<double>& x_local);

 private:
  struct Staging;
  void post_receives(void* recv, std::size_t element_bytes, int planes);
  void post_sends(const void* send, std::size_t element_bytes, int planes);
  void wait_all();

  std::shared_ptr<Context> context_;
  std::shared_ptr<Communicator> comm_;
  HaloPattern pattern_;
  cl::Buffer indices_;  // pattern_.send_indices on the device
  Vector packed_;       // the send values on the device
  std::unique_ptr<Staging> staging_;
  std::vector<MPI_Request> requests_;
  cl::CommandQueue transfer_;  // the read-back and the halo write, beside the compute queue's kernels
  cl::Event compute_mark_;     // the compute queue before the local-block SpMV (start())
  cl::Event read_done_, write_done_;
  Precision precision_ = Precision::Double;
};

}  // namespace clkr
