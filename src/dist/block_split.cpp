// split_blocks: one pass to find the halo columns, one to fill both blocks, rows sorted as they go.
#include "block_split.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

void check_int32(std::int64_t value, const std::string& what) {
  if (value > kInt32Max)
    throw Error("DistMatrix: this rank's " + what + " (" + std::to_string(value) + ") passes the int32 limit " +
                std::to_string(kInt32Max) + " of a block: use more ranks");
}

// Appends row `row`'s (column, value) entries, sorted by column, to `block`; `global_row` and
// `to_global` name a duplicate in the caller's numbering.
template <class ToGlobal>
void append_row(HostCsrMatrix& block, std::vector<std::pair<std::int32_t, double>>& entries, std::int64_t global_row,
                const ToGlobal& to_global) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (k > 0 && entries[k].first == entries[k - 1].first)
      throw Error("DistMatrix: row " + std::to_string(global_row) + " holds column " +
                  std::to_string(to_global(entries[k].first)) + " twice");
    block.col_indices.push_back(entries[k].first);
    block.values.push_back(entries[k].second);
  }
  block.row_offsets.push_back(static_cast<std::int64_t>(block.col_indices.size()));
}

}  // namespace

BlockSplit split_blocks(const LocalRows& rows) {
  const std::int64_t first = rows.first_row, end = rows.first_row + rows.rows();
  check_int32(rows.rows(), "row count");
  check_int32(rows.nnz(), "stored entries");
  BlockSplit split;
  for (std::int64_t c : rows.col_indices)
    if (c < first || c >= end) split.halo_columns.push_back(c);
  std::sort(split.halo_columns.begin(), split.halo_columns.end());
  split.halo_columns.erase(std::unique(split.halo_columns.begin(), split.halo_columns.end()), split.halo_columns.end());

  const auto n = static_cast<std::int32_t>(rows.rows());
  split.local.rows = split.local.cols = n;
  split.halo.cols = static_cast<std::int32_t>(split.halo_columns.size());
  split.local.row_offsets.reserve(static_cast<std::size_t>(n) + 1);
  std::vector<std::pair<std::int32_t, double>> local_entries, halo_entries;
  for (std::int64_t i = 0; i < rows.rows(); ++i) {
    local_entries.clear();
    halo_entries.clear();
    for (std::int64_t k = rows.row_offsets[i]; k < rows.row_offsets[i + 1]; ++k) {
      const std::int64_t c = rows.col_indices[k];
      if (c >= first && c < end) {
        local_entries.emplace_back(static_cast<std::int32_t>(c - first), rows.values[k]);
      } else {
        const auto j = std::lower_bound(split.halo_columns.begin(), split.halo_columns.end(), c);
        halo_entries.emplace_back(static_cast<std::int32_t>(j - split.halo_columns.begin()), rows.values[k]);
      }
    }
    append_row(split.local, local_entries, first + i, [&](std::int32_t j) { return first + j; });
    if (halo_entries.empty()) continue;  // the halo block holds only the rows that have halo entries
    split.halo_rows.push_back(static_cast<std::int32_t>(i));
    append_row(split.halo, halo_entries, first + i, [&](std::int32_t j) { return split.halo_columns[j]; });
  }
  split.halo.rows = static_cast<std::int32_t>(split.halo_rows.size());
  return split;
}

}  // namespace clkr::detail
