// Internal to src/data: the statistics of a validated matrix (what compute_stats gives, `clkr info`
// prints and --format auto reads), for Matrix's constructor and matrix_device_bytes.
#pragma once

#include <cstdint>

#include "clkr/data/csr_view.hpp"
#include "clkr/data/matrix.hpp"

namespace clkr::detail {

// A's statistics: A's row k is row row_ids[k] of a matrix of all_rows rows (the rows between them
// empty) when row_ids is not empty, else row k of A's own A.rows rows (all_rows == A.rows). Without
// `formats` the bytes per format and the diagonals are not counted (MatrixOptions::format_statistics).
MatrixStats matrix_stats(const CsrView& A, ArrayView<std::int32_t> row_ids, std::int64_t all_rows, bool formats = true);

// choose_hyb_width's rule on a validated matrix; all_rows counts the rows A does not list too (empty
// rows: they only count towards the rows a width must cover).
std::int32_t hyb_width_of(const CsrView& A, std::int64_t all_rows);

}  // namespace clkr::detail
