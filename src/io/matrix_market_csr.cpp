// The CSR build of a Matrix Market file's entries: a counting sort over rows (mirror images of a
// symmetric file included), then a sort within the rows that need it and the summing of duplicates.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "matrix_market_parser.hpp"

namespace clkr::detail::matrix_market {

HostCsrMatrix build_csr(const Header& h, const Triples& t) {
  const bool mirror = h.symmetry != Symmetry::general;
  const bool negate_mirror = h.symmetry == Symmetry::skew_symmetric;
  const std::size_t n = t.row.size();
  std::int64_t total = static_cast<std::int64_t>(n);
  if (mirror)
    for (std::size_t k = 0; k < n; ++k) total += t.row[k] != t.col[k];
  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(h.rows);
  A.cols = static_cast<std::int32_t>(h.cols);
  A.symmetric = h.symmetry == Symmetry::symmetric;
  std::vector<std::int64_t>& offsets = A.row_offsets;
  offsets.assign(static_cast<std::size_t>(A.rows) + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    ++offsets[t.row[k] + 1];
    if (mirror && t.row[k] != t.col[k]) ++offsets[t.col[k] + 1];
  }
  for (std::int32_t r = 0; r < A.rows; ++r) offsets[r + 1] += offsets[r];

  std::vector<std::int32_t>& cols = A.col_indices;
  std::vector<double>& vals = A.values;
  cols.resize(static_cast<std::size_t>(total));
  vals.resize(static_cast<std::size_t>(total));
  std::vector<std::int64_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int32_t r = t.row[k], c = t.col[k];
    std::int64_t slot = next[r]++;
    cols[slot] = c;
    vals[slot] = t.val[k];
    if (mirror && r != c) {
      slot = next[c]++;
      cols[slot] = r;
      vals[slot] = negate_mirror ? -t.val[k] : t.val[k];
    }
  }

  // Rows are compacted in place (duplicates summed), so the write position never passes the read one.
  // The counting sort is stable, so files listed in column-major order (as SuiteSparse writes them)
  // arrive with sorted rows and take the fast path.
  std::vector<std::pair<std::int32_t, double>> scratch;
  std::int64_t write = 0;
  for (std::int32_t r = 0; r < A.rows; ++r) {
    const std::int64_t begin = offsets[r], end = offsets[r + 1];
    offsets[r] = write;
    bool strictly_sorted = true;
    for (std::int64_t k = begin + 1; k < end && strictly_sorted; ++k) strictly_sorted = cols[k - 1] < cols[k];
    if (strictly_sorted) {
      if (write != begin) {
        std::copy(cols.begin() + begin, cols.begin() + end, cols.begin() + write);
        std::copy(vals.begin() + begin, vals.begin() + end, vals.begin() + write);
      }
      write += end - begin;
      continue;
    }
    scratch.clear();
    for (std::int64_t k = begin; k < end; ++k) scratch.emplace_back(cols[k], vals[k]);
    // Stable, so that duplicates are summed in file order.
    std::stable_sort(scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < scratch.size(); ++k) {
      if (k > 0 && scratch[k].first == scratch[k - 1].first) {
        vals[write - 1] += scratch[k].second;
      } else {
        cols[write] = scratch[k].first;
        vals[write] = scratch[k].second;
        ++write;
      }
    }
  }
  offsets[A.rows] = write;
  if (write < total) {
    cols.resize(write);
    cols.shrink_to_fit();
    vals.resize(write);
    vals.shrink_to_fit();
  }
  return A;
}

}  // namespace clkr::detail::matrix_market
