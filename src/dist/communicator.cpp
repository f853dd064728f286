// clkr::Communicator: the duplicated MPI communicator, the collective failure check, and the
// reductions that carry a failure flag so that an error on one rank ends every rank together.
#include "clkr/dist/communicator.hpp"

#include <chrono>
#include <cmath>
#include <sstream>
#include <utility>

namespace clkr {
namespace {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string join(const std::vector<double>& values) {
  std::ostringstream out;
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  return out.str();
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

CollectiveError::CollectiveError(const std::string& message, std::vector<int> failed_ranks)
    : Error(message), failed_ranks_(std::move(failed_ranks)) {}

std::shared_ptr<Communicator> Communicator::create(MPI_Comm comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error("clkr::Communicator: MPI is not initialized (call MPI_Init first)");
  return std::shared_ptr<Communicator>(new Communicator(comm));
}

Communicator::Communicator(MPI_Comm comm) {
  check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &node_rank_);
  MPI_Comm_size(node, &node_size_);
  MPI_Comm_free(&node);
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::string Communicator::rank_name() const { return "rank " + std::to_string(rank_) + " of " + std::to_string(size_); }

void Communicator::check(const std::string& local_error) {
  if (!local_error.empty() && pending_.empty()) pending_ = local_error;
  const int failed = pending_.empty() ? 0 : 1;
  int failures = 0;
  check_mpi(MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, comm_), "MPI_Allreduce");
  if (failures > 0) raise();
}

void Communicator::raise() {
  const int mine = pending_.empty() ? 0 : 1;
  std::vector<int> flags(static_cast<std::size_t>(size_));
  MPI_Allgather(&mine, 1, MPI_INT, flags.data(), 1, MPI_INT, comm_);
  std::vector<int> failed;
  for (int r = 0; r < size_; ++r)
    if (flags[static_cast<std::size_t>(r)]) failed.push_back(r);
  // The reduction counted `failures` ranks, and nothing ran in between: the flags name them.
  const int first = failed.front();
  std::uint64_t length = rank_ == first ? pending_.size() : 0;
  MPI_Bcast(&length, 1, MPI_UINT64_T, first, comm_);
  std::string message = rank_ == first ? pending_ : std::string(length, ' ');
  MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
  pending_.clear();
  std::string text = "rank " + std::to_string(first) + " of " + std::to_string(size_) + ": " + message;
  if (failed.size() > 1) {
    text += " (" + std::to_string(failed.size()) + " ranks failed:";
    for (int r : failed) text += " " + std::to_string(r);
    text += ")";
  }
  throw CollectiveError(text, failed);
}

void Communicator::allreduce_sum(std::vector<double>& values) {
  // The last element is the number of failed ranks: one message for both.
  values.push_back(pending_.empty() ? 0.0 : 1.0);
  const double start = now();
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm_),
            "MPI_Allreduce");
  stats_.allreduce_seconds += now() - start;
  ++stats_.allreduces;
  const double failures = values.back();
  values.pop_back();
  if (failures > 0) raise();
}

double Communicator::allreduce_sum(double value) {
  std::vector<double> values{value};
  allreduce_sum(values);
  return values[0];
}

std::int64_t Communicator::allreduce_sum(std::int64_t value) {
  std::int64_t values[2] = {value, pending_.empty() ? 0 : 1};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  if (values[1] > 0) raise();
  return values[0];
}

void Communicator::check_same(const std::vector<double>& values, const std::string& what) {
  const std::vector<std::int64_t> counts = allgather(static_cast<std::int64_t>(values.size()));
  for (int r = 1; r < size_; ++r) {
    if (counts[static_cast<std::size_t>(r)] != counts[0])
      throw agreed_error(r, "ranks disagree on " + what + ": rank 0 passed " + std::to_string(counts[0]) +
                                " values, rank " + std::to_string(r) + " passed " +
                                std::to_string(counts[static_cast<std::size_t>(r)]));
  }
  std::vector<double> all(values.size() * static_cast<std::size_t>(size_));
  MPI_Allgather(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, all.data(), static_cast<int>(values.size()),
                MPI_DOUBLE, comm_);
  std::vector<int> differing;
  for (int r = 1; r < size_; ++r) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!same(all[r * values.size() + i], all[i])) {
        differing.push_back(r);
        break;
      }
    }
  }
  if (differing.empty()) return;
  const auto slice = [&](int r) {
    return std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(r * values.size()),
                               all.begin() + static_cast<std::ptrdiff_t>((r + 1) * values.size()));
  };
  const int r = differing.front();
  CollectiveError error = agreed_error(r, "ranks disagree on " + what + ": rank 0 has (" + join(slice(0)) + "), rank " +
                                              std::to_string(r) + " has (" + join(slice(r)) + ")");
  throw CollectiveError(error.what(), differing);
}

CollectiveError Communicator::agreed_error(int failed, const std::string& message) const {
  return CollectiveError("rank " + std::to_string(failed) + " of " + std::to_string(size_) + ": " + message, {failed});
}

std::vector<std::int64_t> Communicator::allgather(std::int64_t value) const {
  std::vector<std::int64_t> all(static_cast<std::size_t>(size_));
  check_mpi(MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm_), "MPI_Allgather");
  return all;
}

}  // namespace clkr
