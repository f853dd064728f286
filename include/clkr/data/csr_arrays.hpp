// A HostCsrMatrix from the arrays a simulator already holds: CSR (row offsets, column indices, values)
// or COO triplets as FEM assembly produces them, with 32- or 64-bit indices, counted from 0 (C, C++)
// or from 1 (Fortran). Every input is validated first and refused with clkr::Error naming the first bad
// row or entry in the caller's own numbering, so an assembly bug is found where it was made.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/csr_view.hpp"
#include "clkr/data/host_csr_matrix.hpp"

namespace clkr {

// CSR arrays: row_offsets[rows + 1] (row_offsets[0] == index_base, row_offsets[rows] - index_base ==
// nnz), col_indices[nnz] and values[nnz]; index_base 0 or 1 applies to offsets and column indices
// alike. Refused: negative sizes or sizes past the int32 limit of HostCsrMatrix, a null array that
// must hold entries, offsets that do not start at the base or decrease, a column index out of range,
// columns of a row not strictly increasing (unsorted or duplicate), a NaN or Inf value. The result is
// 0-based.
HostCsrMatrix csr_from_arrays(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int32_t* row_offsets,
                              const std::int32_t* col_indices, const double* values, int index_base);
HostCsrMatrix csr_from_arrays(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int64_t* row_offsets,
                              const std::int64_t* col_indices, const double* values, int index_base);

// The same arrays without a copy, for 0-based 32-bit indices (the layout Matrix uploads as it is):
// the sizes and null pointers are checked here, the contents by CsrView::validate, which the Matrix
// constructor runs (with the messages above). The arrays must outlive the view.
CsrView csr_view_of_arrays(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int32_t* row_offsets,
                           const std::int32_t* col_indices, const double* values);

// COO triplets (row_indices[k], col_indices[k], values[k]) for k < nnz, in any order; entries at the
// same position are summed (what element-by-element assembly produces). Refused: as above, naming the
// entry k and its position for an index out of range or a NaN/Inf value. entry_slots, when given,
// receives for every triplet k the index of the CSR entry it was summed into, so that new values of
// the same triplets can be summed again (a time step) without sorting.
HostCsrMatrix coo_to_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int32_t* row_indices,
                         const std::int32_t* col_indices, const double* values, int index_base,
                         std::vector<std::int64_t>* entry_slots = nullptr);
HostCsrMatrix coo_to_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int64_t* row_indices,
                         const std::int64_t* col_indices, const double* values, int index_base,
                         std::vector<std::int64_t>* entry_slots = nullptr);

}  // namespace clkr
