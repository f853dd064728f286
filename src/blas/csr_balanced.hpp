// Internal: the load-balanced CSR kernels (kernels/spmv/csr_balanced.cl): when they apply, how their
// row blocks are sized for a launch, and the standalone SpMV's launch. The fused and persistent CG
// (src/solver/) size their blocks with the same functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "clkr/blas/device_params.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"

namespace clkr::detail {

// A matrix in CSR whose row lengths meet SpmvParams::csr_balanced_min_row_ratio.
bool csr_balanced_applies(const SpmvParams& params, const Matrix& A);

// Work-group blocks for `groups` work-groups of `work_group` work-items that take the blocks in turn
// (block b to group b mod groups): at most work_group x entries_per_item entries each, and no more than
// half the device's local memory holds as `acc_bytes` accumulators (a block's products; the other half
// is left for the kernels' own reductions), in about a multiple of `groups` blocks of equal entries, so
// that the groups finish together.
Matrix::RowBlockShape group_row_blocks(std::int64_t nnz, std::size_t work_group, std::size_t entries_per_item,
                                       std::size_t groups, const DeviceInfo& device, std::size_t acc_bytes);
// Work-item blocks: `parts` blocks of about equal entries + rows.
Matrix::RowBlockShape item_row_blocks(const Matrix& A, std::size_t parts);

// The largest power of two <= v (v >= 1): the kernels' reductions halve the work-group.
std::size_t floor_power_of_two(std::size_t v);

// y = alpha*A*x + beta*y with spmv_csr_balanced (work-group blocks) or spmv_csr_balanced_rows
// (work-item blocks), as params.csr_balanced_blocks says; `options` are the SpMV program's build options (with -DKAHAN
// when `kahan`, and a fused epilogue's option, whose operands `epilogue_args` appends); A's values in
// `storage` (spmv_device's).
cl::Event spmv_csr_balanced(Context& context, const SpmvParams& params, Precision p, bool kahan,
                            const std::string& options, double alpha, Matrix& A, const Vector::DeviceBuffers& x,
                            double beta, const Vector::DeviceBuffers& y,
                            const std::function<void(KernelArgs&)>& epilogue_args = {},
                            ValueStorage storage = ValueStorage::Working);

}  // namespace clkr::detail
