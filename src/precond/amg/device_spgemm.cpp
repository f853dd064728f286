// The launches of spgemm.cl (short rows per work-item, long rows per work-group with a hash table in
// local or global memory) and of the numeric product (galerkin.cl's galerkin_multiply).
#include "device_spgemm.hpp"

#include "clkr/runtime/error.hpp"
#include "device_galerkin.hpp"
#include "device_scan.hpp"

namespace clkr::detail::amg {

namespace {

// bound[i] = the products of row i of A B; scratch_size[i] = the global hash table it needs (or 0).
void row_bounds(const SetupKernels& kernels, const DevicePattern& A, const DevicePattern& B, const cl::Buffer& bound,
                const cl::Buffer& scratch_size) {
  cl::Kernel bounds = kernels.kernel("spgemm.cl", "spgemm_bounds");
  set_args(bounds, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, bound, scratch_size);
  kernels.per_item(bounds, static_cast<std::size_t>(A.rows));
}

}  // namespace

DevicePattern product_pattern(const SetupKernels& kernels, const DevicePattern& A, const DevicePattern& B) {
  const auto rows = static_cast<std::size_t>(A.rows);
  cl::Buffer bound = kernels.array<cl_int>(rows, "product row bounds");
  // The global hash tables of rows too long for local memory: sizes, then offsets by a prefix sum.
  cl::Buffer scratch_offsets = kernels.array<cl_int>(rows + 1, "product hash table offsets");
  row_bounds(kernels, A, B, bound, scratch_offsets);
  const std::int32_t scratch_slots = exclusive_scan(kernels, scratch_offsets, A.rows, "the hash tables of a product");
  cl::Buffer scratch = kernels.array<cl_int>(static_cast<std::size_t>(scratch_slots), "product hash tables");

  DevicePattern C;
  C.rows = A.rows;
  C.cols = B.cols;
  C.offsets = kernels.array<cl_int>(rows + 1, "product row offsets");
  cl::Kernel count_short = kernels.kernel("spgemm.cl", "spgemm_count_short");
  set_args(count_short, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound, C.offsets);
  kernels.per_item(count_short, rows);
  cl::Kernel count_long = kernels.kernel("spgemm.cl", "spgemm_count_long");
  set_args(count_long, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound, scratch_offsets,
           scratch, C.offsets);
  kernels.per_group(count_long, rows);
  C.nnz = exclusive_scan(kernels, C.offsets, A.rows, "a product");

  C.columns = kernels.array<cl_int>(static_cast<std::size_t>(C.nnz), "product column indices");
  cl::Kernel fill_short = kernels.kernel("spgemm.cl", "spgemm_fill_short");
  set_args(fill_short, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound, C.offsets,
           C.columns);
  kernels.per_item(fill_short, rows);
  cl::Kernel fill_long = kernels.kernel("spgemm.cl", "spgemm_fill_long");
  set_args(fill_long, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound, scratch_offsets,
           scratch, C.offsets, C.columns);
  kernels.per_group(fill_long, rows);
  sort_segments(kernels, C.rows, C.offsets, C.columns);
  return C;
}

std::shared_ptr<Matrix> multiply(const SetupKernels& kernels, Matrix& A, Matrix& B) {
  if (A.cols() != B.rows())
    throw Error("amg: a device product of a " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                " and a " + std::to_string(B.rows()) + " x " + std::to_string(B.cols()) + " matrix");
  const DevicePattern C = product_pattern(kernels, pattern_of(A), pattern_of(B));
  cl::Buffer values = kernels.array<cl_double>(static_cast<std::size_t>(C.nnz), "product values");
  auto product = std::make_shared<Matrix>(
      Matrix::from_device_csr(kernels.shared_context(), C.rows, C.cols, C.nnz, C.offsets, C.columns, values));
  multiply_values(kernels, A, B, *product);
  return product;
}

void multiply_values(const SetupKernels& kernels, Matrix& A, Matrix& B, Matrix& C) {
  kernels.record("galerkin_multiply", multiply_on_device(A, B, C, kernels.galerkin()));
  C.values_written_on_device();
}

}  // namespace clkr::detail::amg
