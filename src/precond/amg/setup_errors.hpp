// The errors by which an AMG setup refuses what it cannot build, one wording for the host and the
// device setups and the update step: a diagonal that is not positive (naming row and level), an
// aggregation that makes no progress (naming the level), NaN/Inf in a coarse operator (naming the
// entry), a coarsest level too large for the direct solve.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {

// Throws unless every entry of `diagonal` (level `level`'s operator's) is positive and finite.
void check_diagonal(const std::vector<double>& diagonal, std::size_t level);
// The refusal of level `level`'s operator for its diagonal entry `value` (not positive and finite) in `row`.
Error diagonal_error(std::size_t level, std::int64_t row, double value);

Error no_progress_error(std::size_t level, std::int32_t rows, std::int32_t nodes, std::int32_t aggregates,
                        std::int32_t coarse_rows, double eps);
Error nonfinite_error(std::size_t level, double value, std::int32_t row, std::int32_t col);
// Throws when the coarsest level (`level`, `rows` unknowns) is past the dense direct solve's limit.
void check_coarsest(std::size_t level, std::int32_t rows, int max_levels);

}  // namespace clkr::detail::amg
