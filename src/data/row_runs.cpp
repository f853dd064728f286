// Runs of rows with the same columns: compared row by row with the run's first row.
#include "row_runs.hpp"

namespace clkr::detail {

std::vector<std::int32_t> row_runs(const HostCsrMatrix& A) {
  std::vector<std::int32_t> first{0};
  for (std::int32_t i = 0; i < A.rows;) {
    std::int32_t end = i + 1;
    while (end < A.rows && end - i < kRowRunMaxRows && A.same_columns(i, end)) ++end;
    first.push_back(end);
    i = end;
  }
  const auto runs = static_cast<double>(first.size() - 1);
  if (A.rows == 0 || A.rows < 1.15 * runs) return {};
  return first;
}

}  // namespace clkr::detail
