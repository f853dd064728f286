// clkr::DistVector: construction (with the collective length check) and gathering.
#include "clkr/dist/dist_vector.hpp"

#include <utility>

namespace clkr {
namespace {

const RowPartition& checked_partition(const Communicator& comm, const RowPartition& partition) {
  if (partition.ranks() != comm.size())
    throw Error("DistVector: the partition has " + std::to_string(partition.ranks()) + " ranks, the communicator " +
                std::to_string(comm.size()));
  return partition;
}

std::size_t local_size(const Communicator& comm, const RowPartition& partition) {
  return static_cast<std::size_t>(checked_partition(comm, partition).count(comm.rank()));
}

}  // namespace

DistVector::DistVector(std::shared_ptr<Communicator> comm, RowPartition partition, Vector local)
    : comm_(std::move(comm)), partition_(std::move(partition)), local_(std::move(local)) {}

DistVector::DistVector(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, RowPartition partition,
                       std::string name)
    : DistVector(comm, partition, Vector(std::move(context), local_size(*comm, partition), std::move(name))) {}

DistVector::DistVector(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, RowPartition partition,
                       const std::vector<double>& local_values, std::string name)
    : DistVector(std::move(context), comm, partition, name) {
  comm_->checked("DistVector '" + name + "'", [&] {
    if (local_values.size() != local_.size())
      throw Error("this rank owns " + std::to_string(local_.size()) + " rows (" + std::to_string(first_row()) + ".." +
                  std::to_string(partition_.end(comm_->rank()) - 1) + ") but was given " +
                  std::to_string(local_values.size()) + " values");
    local_.assign(local_values);
  });
}

DistVector DistVector::clone(const std::string& name) const {
  return DistVector(comm_, partition_, local_.clone(name));
}

std::vector<double> DistVector::gather() const {
  std::vector<double> mine;
  comm_->checked("DistVector::gather", [&] { mine = local_.to_host(); });
  std::vector<int> counts(static_cast<std::size_t>(comm_->size())), displacements(counts.size());
  for (int r = 0; r < comm_->size(); ++r) {
    counts[r] = static_cast<int>(partition_.count(r));
    displacements[r] = static_cast<int>(partition_.first(r));
  }
  std::vector<double> all(static_cast<std::size_t>(partition_.rows()));
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                 displacements.data(), MPI_DOUBLE, comm_->comm());
  return all;
}

}  // namespace clkr
