// Internal to src/data: what Matrix::from_device_csr must know of a CSR matrix made on the device, found
// there (kernels/data/csr_row_facts.cl) so that only a few numbers and the diagonal cross to the host.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/matrix.hpp"

namespace clkr::detail {

struct DeviceCsrFacts {
  MatrixStats stats;             // sizes, row lengths, bandwidth, HYB width; bytes_per_format left empty
  cl::Buffer diagonal_entry;     // per row: where its diagonal entry sits among the entries (-1: none)
  std::vector<double> diagonal;  // 0 where there is no entry
};

// The facts of the rows x cols CSR matrix in `row_offsets`, `col_indices` (ascending within rows) and
// double `values`, all on the device of `context`.
DeviceCsrFacts device_csr_facts(Context& context, std::int32_t rows, std::int32_t cols, const cl::Buffer& row_offsets,
                                const cl::Buffer& col_indices, const cl::Buffer& values);

}  // namespace clkr::detail
