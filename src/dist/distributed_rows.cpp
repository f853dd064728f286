// Generated rows (each rank its own, from the stencil the single-device generators use) and rows
// scattered from one rank.
#include "clkr/dist/distributed_rows.hpp"

#include <charconv>
#include <limits>
#include <string_view>
#include <vector>

#include "../io/laplacian_row.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr {
namespace {

struct Grid {
  int dims = 0;
  std::int64_t n = 0;
};

// "poisson3d:N" -> {3, N}; dims 0 when the spec is not one of the two.
Grid parse_grid(const std::string& spec, bool strict) {
  for (const auto& [name, dims] : {std::pair<std::string_view, int>("poisson2d:", 2), {"poisson3d:", 3}}) {
    if (spec.compare(0, name.size(), name) != 0) continue;
    const std::string_view arg = std::string_view(spec).substr(name.size());
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    const bool valid = ec == std::errc() && ptr == arg.data() + arg.size() && n >= 1 &&
                       (dims == 2 ? n <= 3'000'000'000LL : n <= 2'000'000LL);
    if (!valid && strict)
      throw Error("'" + spec + "': expected " + std::string(name) + "N with N a whole number in 1.." +
                  (dims == 2 ? "3000000000" : "2000000"));
    return valid ? Grid{dims, n} : Grid{};
  }
  if (strict) throw Error("'" + spec + "' is not poisson2d:N or poisson3d:N (the generators ranks run themselves)");
  return {};
}

std::int64_t power(std::int64_t n, int dims) {
  std::int64_t r = 1;
  for (int d = 0; d < dims; ++d) r *= n;
  return r;
}

}  // namespace

bool generates_rows(const std::string& spec) {
  return spec.rfind("poisson2d:", 0) == 0 || spec.rfind("poisson3d:", 0) == 0;
}

std::int64_t generated_rows(const std::string& spec) {
  const Grid g = parse_grid(spec, true);
  return power(g.n, g.dims);
}

LocalRows generate_rows(const std::string& spec, std::int64_t first, std::int64_t end) {
  const Grid g = parse_grid(spec, true);
  LocalRows rows;
  rows.global_rows = power(g.n, g.dims);
  if (first < 0 || end < first || end > rows.global_rows)
    throw Error(spec + ": rows " + std::to_string(first) + ".." + std::to_string(end - 1) + " outside its " +
                std::to_string(rows.global_rows) + " rows");
  rows.first_row = first;
  const std::int64_t count = end - first, most = (2 * g.dims + 1) * count;
  check_host_memory(8 * (count + 1) + 16 * most, spec + " rows " + std::to_string(first) + ".." +
                                                     std::to_string(end - 1) + " (at most " + std::to_string(most) +
                                                     " nonzeros with 64-bit column indices)");
  rows.row_offsets.reserve(static_cast<std::size_t>(count) + 1);
  rows.col_indices.reserve(static_cast<std::size_t>(most));
  rows.values.reserve(static_cast<std::size_t>(most));
  for (std::int64_t row = first; row < end; ++row) {
    detail::laplacian_row(row, g.n, g.dims, [&](std::int64_t column, double value) {
      rows.col_indices.push_back(column);
      rows.values.push_back(value);
    });
    rows.row_offsets.push_back(static_cast<std::int64_t>(rows.col_indices.size()));
  }
  return rows;
}

LocalRows scatter_rows(Communicator& comm, const HostCsrMatrix* whole, const RowPartition& partition, int root) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  const bool is_root = comm.rank() == root;
  // What goes to each rank: its rows' entries (counts and displacements into the whole arrays), and
  // its row offsets rebased to 0 (counts + 1 each, gathered into one send buffer on the root).
  std::vector<int> entries(ranks), entry_displ(ranks), offset_counts(ranks), offset_displ(ranks);
  std::vector<std::int64_t> offsets_out;
  std::int64_t global_rows = 0;
  comm.checked("scatter_rows", [&] {
    if (!is_root) return;
    if (!whole) throw Error("the root rank has no matrix to scatter");
    if (partition.rows() != whole->rows)
      throw Error("the partition covers " + std::to_string(partition.rows()) + " rows, the matrix has " +
                  std::to_string(whole->rows));
    global_rows = whole->rows;
    for (std::size_t r = 0; r < ranks; ++r) {
      const std::int64_t begin = whole->row_offsets[partition.first(static_cast<int>(r))];
      entries[r] = static_cast<int>(whole->row_offsets[partition.end(static_cast<int>(r))] - begin);
      entry_displ[r] = static_cast<int>(begin);
      offset_counts[r] = static_cast<int>(partition.count(static_cast<int>(r)) + 1);
      offset_displ[r] = static_cast<int>(offsets_out.size());
      for (std::int64_t i = partition.first(static_cast<int>(r)); i <= partition.end(static_cast<int>(r)); ++i)
        offsets_out.push_back(whole->row_offsets[i] - begin);
    }
  });
  MPI_Bcast(&global_rows, 1, MPI_INT64_T, root, comm.comm());
  int my_entries = 0;
  MPI_Scatter(entries.data(), 1, MPI_INT, &my_entries, 1, MPI_INT, root, comm.comm());
  LocalRows rows;
  rows.global_rows = global_rows;
  rows.first_row = partition.first(comm.rank());
  rows.row_offsets.resize(static_cast<std::size_t>(partition.count(comm.rank())) + 1);
  MPI_Scatterv(offsets_out.data(), offset_counts.data(), offset_displ.data(), MPI_INT64_T, rows.row_offsets.data(),
               static_cast<int>(rows.row_offsets.size()), MPI_INT64_T, root, comm.comm());
  // Column indices travel as int32 (the whole matrix's own type) and widen on arrival.
  std::vector<std::int32_t> columns(static_cast<std::size_t>(my_entries));
  rows.values.resize(static_cast<std::size_t>(my_entries));
  MPI_Scatterv(is_root ? whole->col_indices.data() : nullptr, entries.data(), entry_displ.data(), MPI_INT32_T,
               columns.data(), my_entries, MPI_INT32_T, root, comm.comm());
  MPI_Scatterv(is_root ? whole->values.data() : nullptr, entries.data(), entry_displ.data(), MPI_DOUBLE,
               rows.values.data(), my_entries, MPI_DOUBLE, root, comm.comm());
  rows.col_indices.assign(columns.begin(), columns.end());
  return rows;
}

}  // namespace clkr
