// clkr::RowPartition: which contiguous block of global rows each rank owns (rank r: rows
// [first(r), end(r))), given by the caller, uniform, or balanced by the work of each row.
#pragma once

#include <cstdint>
#include <vector>

namespace clkr {

class RowPartition {
 public:
  // offsets[r] is rank r's first row, offsets.back() the number of rows: offsets.size() = ranks + 1,
  // offsets[0] = 0, non-decreasing (a rank may own no rows). Throws clkr::Error naming the first
  // offset that breaks this.
  explicit RowPartition(std::vector<std::int64_t> offsets);
  // Equal counts, the first rows % ranks ranks one row more.
  static RowPartition uniform(std::int64_t rows, int ranks);
  // Contiguous blocks of about equal work, a row's work being its stored entries plus one (the output
  // it writes, so empty rows count too): rank r ends at the first row where the running work reaches
  // (r + 1) / ranks of the total. `row_offsets` is the CSR row pointer of the whole matrix.
  static RowPartition balanced_by_nnz(const std::vector<std::int64_t>& row_offsets, int ranks);

  int ranks() const { return static_cast<int>(offsets_.size()) - 1; }
  std::int64_t rows() const { return offsets_.back(); }
  std::int64_t first(int rank) const { return offsets_[static_cast<std::size_t>(rank)]; }
  std::int64_t end(int rank) const { return offsets_[static_cast<std::size_t>(rank) + 1]; }
  std::int64_t count(int rank) const { return end(rank) - first(rank); }
  // The rank owning `row` (0 <= row < rows(); with empty ranks, the one whose block holds it).
  int owner(std::int64_t row) const;
  const std::vector<std::int64_t>& offsets() const { return offsets_; }

  bool operator==(const RowPartition& other) const { return offsets_ == other.offsets_; }
  bool operator!=(const RowPartition& other) const { return !(*this == other); }

 private:
  std::vector<std::int64_t> offsets_;
};

}  // namespace clkr
