// Runs of rows with the same columns: compared row by row with the run's first row.
#include "row_runs.hpp"

#include <algorithm>

namespace clkr::detail {

std::vector<std::int32_t> row_runs(const HostCsrMatrix& A) {
  std::vector<std::int32_t> first{0};
  const auto same_columns = [&A](std::int32_t i, std::int32_t j) {
    const std::int64_t a = A.row_offsets[i], b = A.row_offsets[j], length = A.row_offsets[i + 1] - a;
    return A.row_offsets[j + 1] - b == length &&
           std::equal(A.col_indices.begin() + a, A.col_indices.begin() + a + length, A.col_indices.begin() + b);
  };
  for (std::int32_t i = 0; i < A.rows;) {
    std::int32_t end = i + 1;
    while (end < A.rows && end - i < kRowRunMaxRows && same_columns(i, end)) ++end;
    first.push_back(end);
    i = end;
  }
  const auto runs = static_cast<double>(first.size() - 1);
  if (A.rows == 0 || A.rows < 1.15 * runs) return {};
  return first;
}

}  // namespace clkr::detail
