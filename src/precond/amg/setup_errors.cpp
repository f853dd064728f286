// The wording of the AMG setup's refusals (setup_errors.hpp).
#include "setup_errors.hpp"

#include <cmath>
#include <string>

#include "../../runtime/format_number.hpp"
#include "hierarchy.hpp"

namespace clkr::detail::amg {

void check_diagonal(const std::vector<double>& diagonal, std::size_t level) {
  for (std::size_t i = 0; i < diagonal.size(); ++i)
    if (!(diagonal[i] > 0 && std::isfinite(diagonal[i])))
      throw diagonal_error(level, static_cast<std::int64_t>(i), diagonal[i]);
}

Error diagonal_error(std::size_t level, std::int64_t row, double value) {
  const std::string i = std::to_string(row);
  if (level == 0)
    return Error("amg: A(" + i + "," + i + ") = " + format_number(value) + (value == 0 ? " (zero or not stored)" : "") +
                 ": smoothed aggregation needs a positive diagonal (an SPD or M-matrix-like operator)");
  return Error("amg: the coarse operator of level " + std::to_string(level) + " has diagonal entry " +
               format_number(value) + " in row " + i +
               ": A is not positive definite (or the near-null space does not fit it)");
}

Error no_progress_error(std::size_t level, std::int32_t rows, std::int32_t nodes, std::int32_t aggregates,
                        std::int32_t coarse_rows, double eps) {
  return Error("amg: aggregation made no progress on level " + std::to_string(level) + ": " + std::to_string(rows) +
               " unknowns in " + std::to_string(nodes) + " nodes gave " + std::to_string(aggregates) +
               " aggregates and " + std::to_string(coarse_rows) + " coarse unknowns (strength threshold " +
               format_number(eps) + ": too few strong connections; lower it, or use another preconditioner)");
}

Error nonfinite_error(std::size_t level, double value, std::int32_t row, std::int32_t col) {
  return Error("amg: the coarse operator of level " + std::to_string(level) + " holds " + format_number(value) +
               " in row " + std::to_string(row) + ", column " + std::to_string(col) +
               " (overflow: are A's values finite and scaled sensibly?)");
}

void check_coarsest(std::size_t level, std::int32_t rows, int max_levels) {
  if (rows > kMaxDirectRows)
    throw Error("amg: the coarsest level (" + std::to_string(level) + ") has " + std::to_string(rows) +
                " unknowns, more than the " + std::to_string(kMaxDirectRows) +
                " its dense direct solve takes (max_levels = " + std::to_string(max_levels) + " reached: raise it)");
}

}  // namespace clkr::detail::amg
