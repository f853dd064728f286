// The wording of the AMG setup's refusals (setup_errors.hpp).
#include "setup_errors.hpp"

#include <cmath>
#include <string>

#include "../../runtime/format_number.hpp"
#include "hierarchy.hpp"

namespace clkr::detail::amg {

void check_diagonal(const std::vector<double>& diagonal, std::size_t level) {
  for (std::size_t i = 0; i < diagonal.size(); ++i) {
    const double d = diagonal[i];
    if (d > 0 && std::isfinite(d)) continue;
    const std::string row = std::to_string(i);
    if (level == 0)
      throw Error("amg: A(" + row + "," + row + ") = " + format_number(d) + (d == 0 ? " (zero or not stored)" : "") +
                  ": smoothed aggregation needs a positive diagonal (an SPD or M-matrix-like operator)");
    throw Error("amg: the coarse operator of level " + std::to_string(level) + " has diagonal entry " +
                format_number(d) + " in row " + row +
                ": A is not positive definite (or the near-null space does not fit it)");
  }
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
