// clkr::RowPartition: validation of given offsets, and the uniform and nnz-balanced partitions.
#include "clkr/dist/row_partition.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "clkr/runtime/error.hpp"

namespace clkr {

RowPartition::RowPartition(std::vector<std::int64_t> offsets) : offsets_(std::move(offsets)) {
  if (offsets_.size() < 2) throw Error("RowPartition: needs at least one rank (offsets of ranks + 1 entries)");
  if (offsets_[0] != 0)
    throw Error("RowPartition: rank 0's rows start at " + std::to_string(offsets_[0]) + ", not 0 (rows 0.." +
                std::to_string(offsets_[0] - 1) + " would belong to no rank)");
  for (std::size_t r = 1; r < offsets_.size(); ++r) {
    if (offsets_[r] < offsets_[r - 1])
      throw Error("RowPartition: rank " + std::to_string(r) + "'s rows start at " + std::to_string(offsets_[r]) +
                  ", before rank " + std::to_string(r - 1) + "'s, at " + std::to_string(offsets_[r - 1]) +
                  " (the blocks must be contiguous and in rank order)");
  }
}

RowPartition RowPartition::uniform(std::int64_t rows, int ranks) {
  if (ranks < 1 || rows < 0)
    throw Error("RowPartition::uniform: " + std::to_string(rows) + " rows over " + std::to_string(ranks) + " ranks");
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) offsets[r + 1] = offsets[r] + rows / ranks + (r < rows % ranks ? 1 : 0);
  return RowPartition(std::move(offsets));
}

RowPartition RowPartition::balanced_by_nnz(const std::vector<std::int64_t>& row_offsets, int ranks) {
  if (ranks < 1 || row_offsets.empty())
    throw Error("RowPartition::balanced_by_nnz: needs a CSR row pointer and at least one rank");
  const auto rows = static_cast<std::int64_t>(row_offsets.size()) - 1;
  // work(i) = row_offsets[i] + i: the work of rows [0, i).
  const auto work = [&](std::int64_t i) { return static_cast<std::int64_t>(row_offsets[i]) + i; };
  const std::int64_t total = work(rows);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(ranks) + 1, rows);
  offsets[0] = 0;
  std::int64_t row = 0;
  for (int r = 1; r < ranks; ++r) {
    const std::int64_t target = total * r / ranks;  // < 2^62: no overflow for int32 matrices
    while (row < rows && work(row) < target) ++row;
    offsets[r] = row;
  }
  return RowPartition(std::move(offsets));
}

int RowPartition::owner(std::int64_t row) const {
  if (row < 0 || row >= rows())
    throw Error("RowPartition::owner: row " + std::to_string(row) + " outside 0.." + std::to_string(rows() - 1));
  // The last rank whose first row is <= row: empty ranks before it share its first row.
  const auto it = std::upper_bound(offsets_.begin(), offsets_.end() - 1, row);
  return static_cast<int>(it - offsets_.begin()) - 1;
}

}  // namespace clkr
