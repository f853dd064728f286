// The first row of [0, rows) that a check rejects, found by all cores (OpenMP): validating a matrix of
// billions of entries was one thread's pass, and `clkr solve` validates what it loads more than once. The
// caller then reports that row's defect, the same first defect a sequential pass would have met. Small
// matrices (the AMG's coarse levels, its dense inverse) are checked on the caller's thread: starting
// the workers would cost more than the pass.
#pragma once

#include <cstdint>

namespace clkr::detail {

// `rejects(r)` must be safe to call from several threads at once (it only reads).
template <class Rejects>
std::int64_t first_rejected_row(std::int64_t rows, const Rejects& rejects) {
  std::int64_t first = rows;
#pragma omp parallel for reduction(min : first) schedule(static) if (rows > (std::int64_t{1} << 16))
  for (std::int64_t r = 0; r < rows; ++r)
    if (r < first && rejects(r)) first = r;  // a thread's rows ascend: past its first defect, nothing to find
  return first;
}

}  // namespace clkr::detail
