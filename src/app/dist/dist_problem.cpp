// The distributed program's setup (dist_problem.hpp): device, rows, partition, blocks, per-rank facts.
#include "dist_problem.hpp"

#include <cstring>

#include "../commands.hpp"
#include "clkr/dist/distributed_rows.hpp"
#include "clkr/dist/rank_device.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr::app {
namespace {

RowPartition chosen_partition(const std::string& name, const HostCsrMatrix& A, int ranks) {
  if (name == "uniform") return RowPartition::uniform(A.rows, ranks);
  return RowPartition::balanced_by_nnz(A.row_offsets, ranks);
}

// Rank 0 reads (or generates) the whole matrix and scatters the row blocks.
LocalRows scattered_rows(Communicator& comm, const DistProblemOptions& options) {
  HostCsrMatrix whole;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(comm.size()) + 1);
  comm.checked("reading " + options.matrix, [&] {
    if (comm.rank() != 0) return;
    whole = load_matrix(options.matrix);
    if (whole.rows != whole.cols)
      throw Error(options.matrix + " is " + std::to_string(whole.rows) + " x " + std::to_string(whole.cols) +
                  ": the solvers need a square matrix");
    offsets = chosen_partition(options.partition, whole, comm.size()).offsets();
  });
  MPI_Bcast(offsets.data(), static_cast<int>(offsets.size()), MPI_INT64_T, 0, comm.comm());
  return scatter_rows(comm, comm.rank() == 0 ? &whole : nullptr, RowPartition(offsets));
}

}  // namespace

DistSetup open_dist_problem(const std::shared_ptr<Communicator>& comm, const DistProblemOptions& options) {
  DistSetup setup;
  setup.context = open_rank_context(*comm, options.device);
  const bool fp64 = setup.context->info().fp64;
  setup.widest =
      comm->allreduce_sum(std::int64_t{fp64 ? 1 : 0}) == comm->size() ? Precision::Double : Precision::QuasiDouble;
  Stopwatch load_clock;
  setup.generated = generates_rows(options.matrix) && options.partition != "balanced";
  LocalRows rows;
  if (setup.generated) {
    comm->checked("generating " + options.matrix, [&] {
      const RowPartition partition = RowPartition::uniform(generated_rows(options.matrix), comm->size());
      rows = generate_rows(options.matrix, partition.first(comm->rank()), partition.end(comm->rank()));
    });
  } else {
    rows = scattered_rows(*comm, options);
  }
  setup.load_seconds = load_clock.seconds();
  Stopwatch build_clock;
  MatrixOptions matrix_options;
  matrix_options.keep_host_copy = options.keep_host_copy;
  setup.A.emplace(setup.context, comm, rows, Format::Csr, matrix_options);
  rows = LocalRows();  // the host copy is no longer needed
  comm->checked("choosing the storage format", [&] {
    setup.format = options.format
                       ? FormatChoice{*options.format, "--format"}
                       : choose_format(setup.A->local_block().stats(), setup.context->info(), options.plain_cg);
    if (setup.format.format != Format::Csr) setup.A->convert(setup.format.format);
    setup.context->finish();
  });
  setup.build_seconds = build_clock.seconds();
  return setup;
}

RankFacts rank_facts(const Communicator& comm, DistSetup& setup, double seconds) {
  RankFacts f;
  DistMatrix& A = *setup.A;
  const HaloPattern& halo = A.halo_pattern();
  f.rows = A.local_rows();
  f.nnz = A.local_block().nnz() + A.halo_block().nnz();
  f.halo = halo.halo_size();
  f.neighbours = static_cast<std::int64_t>(halo.recv_ranks.size());
  f.sends = halo.send_size();
  f.seconds = seconds;
  f.halo_seconds = comm.stats().halo_seconds;
  f.allreduce_seconds = comm.stats().allreduce_seconds;
  f.halo_device_seconds = comm.stats().halo_device_seconds;
  f.halo_bytes = static_cast<double>(comm.stats().halo_bytes_sent);
  f.device = setup.context->info().name;
  f.format = to_string(setup.format.format);
  return f;
}

std::vector<RankFacts> gather_rank_facts(Communicator& comm, const RankFacts& mine) {
  constexpr int kNumbers = 10, kText = 96;
  const double numbers[kNumbers] = {static_cast<double>(mine.rows),
                                    static_cast<double>(mine.nnz),
                                    static_cast<double>(mine.halo),
                                    static_cast<double>(mine.neighbours),
                                    static_cast<double>(mine.sends),
                                    mine.seconds,
                                    mine.halo_seconds,
                                    mine.allreduce_seconds,
                                    mine.halo_bytes,
                                    mine.halo_device_seconds};
  char text[kText] = {};
  std::snprintf(text, kText, "%s|%s", mine.device.c_str(), mine.format.c_str());
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<double> all_numbers(comm.rank() == 0 ? ranks * kNumbers : 0);
  std::vector<char> all_text(comm.rank() == 0 ? ranks * kText : 0);
  MPI_Gather(numbers, kNumbers, MPI_DOUBLE, all_numbers.data(), kNumbers, MPI_DOUBLE, 0, comm.comm());
  MPI_Gather(text, kText, MPI_CHAR, all_text.data(), kText, MPI_CHAR, 0, comm.comm());
  std::vector<RankFacts> facts;
  for (std::size_t r = 0; r < all_numbers.size() / kNumbers; ++r) {
    const double* n = &all_numbers[r * kNumbers];
    RankFacts f;
    f.rows = static_cast<std::int64_t>(n[0]);
    f.nnz = static_cast<std::int64_t>(n[1]);
    f.halo = static_cast<std::int64_t>(n[2]);
    f.neighbours = static_cast<std::int64_t>(n[3]);
    f.sends = static_cast<std::int64_t>(n[4]);
    f.seconds = n[5];
    f.halo_seconds = n[6];
    f.allreduce_seconds = n[7];
    f.halo_bytes = n[8];
    f.halo_device_seconds = n[9];
    const std::string t(&all_text[r * kText], strnlen(&all_text[r * kText], kText));
    f.device = t.substr(0, t.find('|'));
    f.format = t.substr(t.find('|') + 1);
    facts.push_back(f);
  }
  return facts;
}

}  // namespace clkr::app
