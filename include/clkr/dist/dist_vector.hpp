// clkr::DistVector: a vector distributed by rows: each rank holds its slice (partition.first(rank) ..
// partition.end(rank)) as a clkr::Vector on its own device, in every precision as Vector does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clkr/data/vector.hpp"
#include "clkr/dist/communicator.hpp"
#include "clkr/dist/row_partition.hpp"

namespace clkr {

class DistVector {
 public:
  // Zeros (no communication). Throws clkr::Error when the partition has another number of ranks
  // than the communicator.
  DistVector(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, RowPartition partition,
             std::string name = "vector");
  // This rank's values. Collective: a slice of the wrong length on any rank is a CollectiveError on
  // every rank.
  DistVector(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, RowPartition partition,
             const std::vector<double>& local_values, std::string name = "vector");

  DistVector(DistVector&&) noexcept = default;
  DistVector& operator=(DistVector&&) noexcept = default;

  // A deep copy of this rank's slice (no communication).
  DistVector clone(const std::string& name = "") const;

  Vector& local() { return local_; }
  const Vector& local() const { return local_; }
  const RowPartition& partition() const { return partition_; }
  const std::shared_ptr<Communicator>& communicator() const { return comm_; }
  const std::shared_ptr<Context>& context() const { return local_.context(); }
  std::int64_t size() const { return partition_.rows(); }
  std::int64_t first_row() const { return partition_.first(comm_->rank()); }
  const std::string& name() const { return local_.name(); }

  // Collective: the whole vector on every rank, in global order (for tests and output: it moves the
  // vector to every host; at most 2^31 - 1 elements per rank).
  std::vector<double> gather() const;

 private:
  DistVector(std::shared_ptr<Communicator> comm, RowPartition partition, Vector local);

  std::shared_ptr<Communicator> comm_;
  RowPartition partition_;
  Vector local_;
};

}  // namespace clkr
