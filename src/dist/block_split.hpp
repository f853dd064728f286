// Splitting a rank's rows into the local block (the columns it owns) and the halo block (the columns
// other ranks own, renumbered compactly in global order), both as host CSR matrices.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/dist/local_rows.hpp"

namespace clkr::detail {

struct BlockSplit {
  HostCsrMatrix local;                     // rows x rows, columns = global - first
  HostCsrMatrix halo;                      // halo_rows.size() x halo_columns.size(): the rows with halo entries
  std::vector<std::int32_t> halo_rows;     // the local row of each halo block row, ascending
  std::vector<std::int64_t> halo_columns;  // ascending global columns outside [first, end)
};

// `rows` owns global rows [first, first + rows.rows()) (and the same columns). Each row's entries are
// sorted by column in both blocks; a column given twice in a row is a clkr::Error naming the global row
// and column, as is a block past the int32 limits of HostCsrMatrix. `rows` must be validated.
BlockSplit split_blocks(const LocalRows& rows);

}  // namespace clkr::detail
