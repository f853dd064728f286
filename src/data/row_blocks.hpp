// Internal to src/data: cutting CSR rows into the row blocks of the load-balanced CSR kernels
// (kernels/spmv/csr_balanced.cl), on the host, from the row offsets alone.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/matrix.hpp"

namespace clkr::detail {

// The first row of every block and then `rows` (blocks + 1 entries; just {0} for no rows).
//
// Work-group blocks (shape.max_rows > 0): consecutive rows, at most max_cost entries and max_rows rows,
// and rows x the block's longest row at most 2 max_cost, so that the kernel's WG / rows work-items per
// row (rounded down to a power of two) each sum at most about 4 max_cost / WG entries; a row of more
// than max_cost entries is a block of its own (the whole work-group walks it).
// Work-item blocks (shape.max_rows == 0): consecutive rows whose entries plus rows (a row's offset read
// and store cost about what an entry does) reach max_cost, the last block taking what is left.
std::vector<std::int32_t> row_blocks(const std::vector<std::int64_t>& row_offsets, const Matrix::RowBlockShape& shape);

}  // namespace clkr::detail
