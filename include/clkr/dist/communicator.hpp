// clkr::Communicator: the MPI communicator every distributed object shares, with the rule that keeps
// a failure on one rank from hanging the others: local work that may fail runs first, its outcome is
// agreed on collectively, and only then does any rank enter a collective that could block.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clkr/runtime/error.hpp"

namespace clkr {

// An error raised on every rank of a communicator at once, with the same message everywhere: the
// ranks named in failed_ranks() failed (bad input, no device, out of memory, ...) and the message says
// which and why ("rank 2 of 4: ..."). Catching it on every rank and carrying on is safe: no rank is
// left inside a collective.
class CollectiveError : public Error {
 public:
  CollectiveError(const std::string& message, std::vector<int> failed_ranks);
  const std::vector<int>& failed_ranks() const noexcept { return failed_ranks_; }

 private:
  std::vector<int> failed_ranks_;
};

// Time and traffic of the communication a rank did, for the report's computation/communication split.
struct CommStats {
  double halo_seconds = 0;         // host time in halo exchanges: posting and waiting for the messages,
                                   // queueing the received halo (the overlapped SpMV excluded)
  double halo_device_seconds = 0;  // host time in halo exchanges waiting for the device: for the kernels
                                   // queued before the pack, the pack and its read-back (computation
                                   // that has not ended, not communication; pipelined CG waits here)
  double allreduce_seconds = 0;    // host time in MPI_Allreduce (waiting for the slowest rank included)
  std::uint64_t halo_exchanges = 0;
  std::uint64_t allreduces = 0;
  std::uint64_t halo_bytes_sent = 0;
  std::uint64_t halo_messages_sent = 0;
  double seconds() const { return halo_seconds + allreduce_seconds; }
};

class Communicator {
 public:
  // Duplicates `comm` (collective over it), so clkr's messages never meet the caller's. MPI must be
  // initialized and stay so while the Communicator lives.
  static std::shared_ptr<Communicator> create(MPI_Comm comm = MPI_COMM_WORLD);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // This rank's position among the ranks on its node (shared memory), and their count: for choosing
  // one GPU per rank on a node.
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }
  // "rank 2 of 4", for messages.
  std::string rank_name() const;

  // ---- agreeing on failure ----------------------------------------------------------------------
  // Collective: every rank says whether its part failed (`local_error` empty when not; a failure
  // deferred() recorded counts too). When any did, every rank throws CollectiveError naming the
  // failed ranks, with the message of the lowest one.
  void check(const std::string& local_error);
  // Runs `body` (local work only: no collective inside) and then check(): an exception it throws on
  // any rank becomes a CollectiveError on every rank. `what` prefixes the message.
  template <class Body>
  void checked(const std::string& what, Body&& body) {
    std::string error;
    capture(what, body, error);
    check(error);
  }
  // Runs local device work inside an iteration: skipped once this rank has failed, and a failure is
  // recorded instead of thrown, so the rank still takes part in the exchanges and reductions that
  // follow (with meaningless values) until the next reduction, which raises it on every rank.
  template <class Body>
  void deferred(const std::string& what, Body&& body) {
    if (pending_.empty()) capture(what, body, pending_);
  }
  bool failed() const { return !pending_.empty(); }

  // ---- reductions -------------------------------------------------------------------------------
  // Sums `values` over the ranks in place with one MPI_Allreduce, which also carries the failure flag:
  // throws CollectiveError on every rank when any rank has failed.
  void allreduce_sum(std::vector<double>& values);
  double allreduce_sum(double value);
  std::int64_t allreduce_sum(std::int64_t value);
  // Collective: throws CollectiveError on every rank unless every rank passed the same `values`
  // ("ranks disagree on <what>: rank 0 has ..., rank 2 has ...").
  void check_same(const std::vector<double>& values, const std::string& what);
  // The error for a verdict every rank reached from the same data (no message needed to agree): rank
  // `failed` is named as raise() names a failed rank. For the caller to throw on every rank.
  CollectiveError agreed_error(int failed, const std::string& message) const;
  // Every rank's `value`, in rank order.
  std::vector<std::int64_t> allgather(std::int64_t value) const;

  CommStats& stats() { return stats_; }
  const CommStats& stats() const { return stats_; }

 private:
  explicit Communicator(MPI_Comm comm);
  template <class Body>
  static void capture(const std::string& what, Body& body, std::string& error) {
    try {
      body();
    } catch (const std::exception& e) {
      error = what.empty() ? e.what() : what + ": " + e.what();
      if (error.empty()) error = "unknown failure";
    } catch (...) {
      error = what + ": an exception that is not a std::exception";
    }
  }
  // After a reduction counted failed ranks: finds them and the lowest one's message, and throws that on
  // every rank.
  [[noreturn]] void raise();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
  std::string pending_;  // this rank's failure not yet agreed on
  CommStats stats_;
};

}  // namespace clkr
