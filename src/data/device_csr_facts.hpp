// Internal to src/data: what a Matrix made on the device (Matrix::from_device_csr, or with values
// written there) knows of itself only when asked: its statistics and its diagonal, found on the device
// (kernels/data/csr_row_facts.cl) so that only a few numbers, or the diagonal, cross to the host.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/matrix.hpp"

namespace clkr::detail {

struct DeviceCsrFacts {
  MatrixStats stats;          // sizes, row lengths, bandwidth, HYB width; bytes_per_format left empty
  cl::Buffer diagonal_entry;  // per row: where its diagonal entry sits among the entries (-1: none)
};

// The facts of the rows x cols CSR matrix of nnz entries in `row_offsets` and `col_indices` (ascending
// within rows), on the device of `context`: two launches and one read of a few hundred bytes (a second
// one only when the HYB width would pass the histogram's fixed size, 1024 entries a row).
DeviceCsrFacts device_csr_facts(Context& context, std::int32_t rows, std::int32_t cols, std::int64_t nnz,
                                const cl::Buffer& row_offsets, const cl::Buffer& col_indices);

// The diagonal of the square part of a rows x cols matrix (0 where a row has no diagonal entry) from
// its double `values` and `diagonal_entry` (as device_csr_facts makes it): a gather and one read.
std::vector<double> device_diagonal(Context& context, std::int32_t rows, std::int32_t cols, const cl::Buffer& values,
                                    const cl::Buffer& diagonal_entry);

}  // namespace clkr::detail
