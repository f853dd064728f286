// clkr::DistMatrix: checking the ranks' rows against each other, splitting them into blocks, and the
// setup of the halo pattern (one all-to-all of counts, one of column indices).
#include "clkr/dist/dist_matrix.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "block_split.hpp"

namespace clkr {
namespace {

// The partition the ranks' (first_row, rows) describe, or a CollectiveError (every rank computes the
// same verdict from the same gathered numbers, so every rank throws it without more messages).
RowPartition agreed_partition(Communicator& comm, const LocalRows& rows) {
  comm.check_same({static_cast<double>(rows.global_rows)}, "the matrix size (LocalRows::global_rows)");
  const std::vector<std::int64_t> firsts = comm.allgather(rows.first_row);
  const std::vector<std::int64_t> counts = comm.allgather(rows.rows());
  std::vector<std::int64_t> offsets{0};
  for (int r = 0; r < comm.size(); ++r) {
    const std::int64_t expected = offsets.back(), first = firsts[static_cast<std::size_t>(r)];
    if (first != expected) {
      const std::string prefix = "the row blocks do not tile the matrix: rank " + std::to_string(r) +
                                 "'s rows start at " + std::to_string(first) + " but ";
      const std::string previous = r == 0 ? std::string("the matrix starts at 0")
                                          : "rank " + std::to_string(r - 1) + "'s end at " + std::to_string(expected);
      throw comm.agreed_error(r, prefix + previous +
                                     (first > expected ? " (rows " + std::to_string(expected) + ".." +
                                                             std::to_string(first - 1) + " belong to no rank)"
                                                       : " (they overlap)"));
    }
    offsets.push_back(first + counts[static_cast<std::size_t>(r)]);
  }
  if (offsets.back() != rows.global_rows)
    throw comm.agreed_error(comm.size() - 1, "the row blocks do not tile the matrix: they cover rows 0.." +
                                                 std::to_string(offsets.back() - 1) + " of " +
                                                 std::to_string(rows.global_rows) + " (rows " +
                                                 std::to_string(offsets.back()) + ".." +
                                                 std::to_string(rows.global_rows - 1) + " belong to no rank)");
  return RowPartition(std::move(offsets));
}

// Collective: tells each owner which of its rows this rank needs (the halo columns, grouped by owner
// since they are ascending and the blocks are in rank order) and learns what it must send in turn.
HaloPattern exchange_pattern(Communicator& comm, const RowPartition& partition, std::vector<std::int64_t> columns) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  HaloPattern pattern;
  std::vector<int> want(ranks, 0), give(ranks, 0);
  for (std::int64_t c : columns) ++want[static_cast<std::size_t>(partition.owner(c))];
  MPI_Alltoall(want.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm.comm());
  std::vector<int> want_displ(ranks, 0), give_displ(ranks, 0);
  for (std::size_t r = 1; r < ranks; ++r) {
    want_displ[r] = want_displ[r - 1] + want[r - 1];
    give_displ[r] = give_displ[r - 1] + give[r - 1];
  }
  std::vector<std::int64_t> requested(static_cast<std::size_t>(give_displ.back() + give.back()));
  MPI_Alltoallv(columns.data(), want.data(), want_displ.data(), MPI_INT64_T, requested.data(), give.data(),
                give_displ.data(), MPI_INT64_T, comm.comm());
  const std::int64_t first = partition.first(comm.rank());
  for (std::size_t r = 0; r < ranks; ++r) {
    if (want[r] > 0) {
      pattern.recv_ranks.push_back(static_cast<int>(r));
      pattern.recv_offsets.push_back(pattern.recv_offsets.back() + want[r]);
    }
    if (give[r] > 0) {
      pattern.send_ranks.push_back(static_cast<int>(r));
      pattern.send_offsets.push_back(pattern.send_offsets.back() + give[r]);
    }
  }
  pattern.send_indices.reserve(requested.size());
  for (std::int64_t c : requested) pattern.send_indices.push_back(static_cast<std::int32_t>(c - first));
  pattern.halo_columns = std::move(columns);
  return pattern;
}

}  // namespace

struct DistMatrix::Impl {
  std::shared_ptr<Context> context;
  std::shared_ptr<Communicator> comm;
  RowPartition partition;
  std::int64_t global_nnz = 0;
  std::optional<Matrix> local, halo;
  std::optional<HaloExchange> exchange;
  std::optional<Vector> halo_values, halo_products;
  std::vector<std::int32_t> halo_rows;
  cl::Buffer halo_rows_buffer;

  Impl(std::shared_ptr<Context> c, std::shared_ptr<Communicator> m, RowPartition p)
      : context(std::move(c)), comm(std::move(m)), partition(std::move(p)) {}
};

DistMatrix::DistMatrix(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, const LocalRows& rows,
                       Format format, MatrixOptions options) {
  if (!comm) throw Error("DistMatrix: the communicator is null");
  comm->checked("DistMatrix", [&] {
    if (!context) throw Error("the context is null");
    rows.validate();
  });
  impl_ = std::make_unique<Impl>(context, comm, agreed_partition(*comm, rows));
  detail::BlockSplit split;
  comm->checked("DistMatrix", [&] { split = detail::split_blocks(rows); });
  HaloPattern pattern = exchange_pattern(*comm, impl_->partition, std::move(split.halo_columns));
  Impl& d = *impl_;
  comm->checked("DistMatrix: building the blocks on " + context->info().name, [&] {
    d.local.emplace(context, split.local, format, options);
    d.halo.emplace(context, split.halo, Format::Csr, options);
    d.halo_values.emplace(context, static_cast<std::size_t>(pattern.halo_size()), "halo values");
    d.halo_rows = std::move(split.halo_rows);
    d.halo_products.emplace(context, d.halo_rows.size(), "halo products");
    const std::size_t bytes = d.halo_rows.size() * sizeof(std::int32_t);
    d.halo_rows_buffer = context->allocate(bytes, "halo rows", CL_MEM_READ_ONLY);
    if (bytes > 0) context->queue().enqueueWriteBuffer(d.halo_rows_buffer, CL_TRUE, 0, bytes, d.halo_rows.data());
    d.exchange.emplace(context, comm, std::move(pattern));
  });
  d.global_nnz = comm->allreduce_sum(static_cast<std::int64_t>(split.local.nnz() + split.halo.nnz()));
}

DistMatrix::~DistMatrix() = default;
DistMatrix::DistMatrix(DistMatrix&&) noexcept = default;
DistMatrix& DistMatrix::operator=(DistMatrix&&) noexcept = default;

const RowPartition& DistMatrix::partition() const { return impl_->partition; }
const std::shared_ptr<Communicator>& DistMatrix::communicator() const { return impl_->comm; }
const std::shared_ptr<Context>& DistMatrix::context() const { return impl_->context; }
std::int64_t DistMatrix::global_rows() const { return impl_->partition.rows(); }
std::int64_t DistMatrix::global_nnz() const { return impl_->global_nnz; }
std::int32_t DistMatrix::local_rows() const { return impl_->local->rows(); }
Matrix& DistMatrix::local_block() { return *impl_->local; }
Matrix& DistMatrix::halo_block() { return *impl_->halo; }
const HaloPattern& DistMatrix::halo_pattern() const { return impl_->exchange->pattern(); }
void DistMatrix::convert(Format format) { impl_->local->convert(format); }
HaloExchange& DistMatrix::exchange() { return *impl_->exchange; }
Vector& DistMatrix::halo_values() { return *impl_->halo_values; }
const std::vector<std::int32_t>& DistMatrix::halo_rows() const { return impl_->halo_rows; }
const cl::Buffer& DistMatrix::halo_rows_buffer() { return impl_->halo_rows_buffer; }
Vector& DistMatrix::halo_products() { return *impl_->halo_products; }

}  // namespace clkr
