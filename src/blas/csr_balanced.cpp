// Launches of the load-balanced CSR SpMV kernels and the sizes of their row blocks.
#include "csr_balanced.hpp"

#include <algorithm>

#include "../runtime/integer_math.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "spmv.hpp"

namespace clkr::detail {
namespace {

// acc_t's size: float, or a float pair (Kahan's compensated single, quasi-double), or double.
std::size_t accumulator_bytes(Precision p, bool kahan) {
  return p == Precision::Double || p == Precision::QuasiDouble || kahan ? 8 : 4;
}

}  // namespace

bool csr_balanced_applies(const SpmvParams& params, const Matrix& A) {
  return A.format() == Format::Csr && csr_balanced(params, A.stats().mean_row_length, A.stats().max_row_length);
}

Matrix::RowBlockShape group_row_blocks(std::int64_t nnz, std::size_t work_group, std::size_t entries_per_item,
                                       std::size_t groups, const DeviceInfo& device, std::size_t acc_bytes) {
  const std::size_t fits = static_cast<std::size_t>(device.local_memory) / 2 / std::max<std::size_t>(acc_bytes, 1);
  const auto per_block =
      static_cast<std::int64_t>(std::max<std::size_t>(std::min(work_group * entries_per_item, fits), 1));
  const auto g = static_cast<std::int64_t>(std::max<std::size_t>(groups, 1));
  const std::int64_t rounds = std::max<std::int64_t>(1, ceil_div(nnz, g * per_block));
  Matrix::RowBlockShape shape;
  shape.max_cost = std::max<std::int64_t>(1, ceil_div(nnz, g * rounds));
  shape.max_rows = static_cast<std::int32_t>(work_group);
  return shape;
}

Matrix::RowBlockShape item_row_blocks(const Matrix& A, std::size_t parts) {
  Matrix::RowBlockShape shape;
  shape.max_cost = std::max<std::int64_t>(
      1, ceil_div(A.nnz() + A.rows(), static_cast<std::int64_t>(std::max<std::size_t>(parts, 1))));
  shape.max_rows = 0;
  return shape;
}

std::size_t floor_power_of_two(std::size_t v) {
  std::size_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

cl::Event spmv_csr_balanced(Context& context, const SpmvParams& params, Precision p, bool kahan,
                            const std::string& options, double alpha, Matrix& A, const Vector::DeviceBuffers& x,
                            double beta, const Vector::DeviceBuffers& y,
                            const std::function<void(KernelArgs&)>& epilogue_args, ValueStorage storage) {
  const DeviceInfo& info = context.info();
  const bool per_item = params.csr_balanced_blocks == RowBlocking::WorkItem;
  const Matrix::Values values = A.csr_values(p, storage);
  cl::Kernel kernel = context.kernel("spmv/csr_balanced.cl", per_item ? "spmv_csr_balanced_rows" : "spmv_csr_balanced",
                                     options + value_option(values));
  const Matrix::CsrPart& part = A.csr_part();
  std::size_t local = 1;
  Matrix::RowBlockShape shape;
  if (per_item) {
    // As the row kernels' automatic split on CPUs (spmv.cpp's row_launch): about four blocks per core.
    shape = item_row_blocks(A, std::max<std::size_t>(info.compute_units, 1) * 4);
  } else {
    const std::size_t fits = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
    local = floor_power_of_two(
        std::max<std::size_t>(1, std::min({params.work_group_size, fits, info.max_work_group_size})));
    shape =
        group_row_blocks(A.nnz(), local, params.csr_balanced_entries_per_item, 1, info, accumulator_bytes(p, kahan));
  }
  const Matrix::RowBlocks& blocks = A.csr_row_blocks(shape);
  KernelArgs args(kernel, p);
  args.value(static_cast<cl_int>(blocks.count)).value(blocks.first_rows).value(part.row_offsets);
  args.value(part.col_indices).matrix_values(values).vector(x).real(alpha).real(beta).vector(y);
  if (!per_item) {
    const std::size_t acc = accumulator_bytes(p, kahan);
    args.local(static_cast<std::size_t>(shape.max_cost) * acc).local(local * acc);
  }
  if (epilogue_args) epilogue_args(args);
  cl::Event event;
  const std::size_t groups = std::max<std::int32_t>(blocks.count, 1);
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local), nullptr,
                                       &event);
  return event;
}

}  // namespace clkr::detail
