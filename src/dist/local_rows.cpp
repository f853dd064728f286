// LocalRows::validate: the invariants of a rank's rows, checked before anything is built from them.
#include "clkr/dist/local_rows.hpp"

#include <cmath>
#include <string>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {

void LocalRows::validate() const {
  const std::string who = "LocalRows: ";
  if (global_rows < 0) throw Error(who + "global_rows = " + std::to_string(global_rows) + " is negative");
  if (row_offsets.empty() || row_offsets[0] != 0)
    throw Error(who + "row_offsets must start with 0 (it has " + std::to_string(row_offsets.size()) + " entries)");
  if (first_row < 0 || first_row + rows() > global_rows)
    throw Error(who + "rows " + std::to_string(first_row) + ".." + std::to_string(first_row + rows() - 1) +
                " lie outside the matrix's " + std::to_string(global_rows) + " rows");
  if (col_indices.size() != values.size())
    throw Error(who + std::to_string(col_indices.size()) + " column indices but " + std::to_string(values.size()) +
                " values");
  for (std::int64_t i = 0; i < rows(); ++i) {
    const std::int64_t begin = row_offsets[i], end = row_offsets[i + 1];
    const std::string row = "row " + std::to_string(first_row + i) + " (local row " + std::to_string(i) + ")";
    if (end < begin || end > nnz())
      throw Error(who + row + ": row_offsets " + std::to_string(begin) + ", " + std::to_string(end) +
                  " decrease or pass the " + std::to_string(nnz()) + " entries");
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int64_t c = col_indices[k];
      if (c < 0 || c >= global_rows)
        throw Error(who + row + ", entry " + std::to_string(k) + ": column " + std::to_string(c) +
                    " outside the matrix's columns 0.." + std::to_string(global_rows - 1));
      if (!std::isfinite(values[k]))
        throw Error(who + row + ", column " + std::to_string(c) + ": value " + detail::format_number(values[k]) +
                    " is not finite");
    }
  }
  if (row_offsets.back() != nnz())
    throw Error(who + "row_offsets ends at " + std::to_string(row_offsets.back()) + " but there are " +
                std::to_string(nnz()) + " entries");
}

}  // namespace clkr
