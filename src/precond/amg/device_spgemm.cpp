// The launches of spgemm.cl (short rows per work-item, long rows per work-group with a hash table in
// local or global memory) and of the numeric product.
#include "device_spgemm.hpp"

#include "clkr/runtime/error.hpp"
#include "device_galerkin.hpp"
#include "device_scan.hpp"

namespace clkr::detail::amg {

DevicePattern product_pattern(const SetupKernels& kernels, const DevicePattern& A, const DevicePattern& B) {
  const auto rows = static_cast<std::size_t>(A.rows);
  cl::Buffer bound = kernels.array<cl_int>(rows, "product row bounds");
  // The global hash tables of rows too long for local memory: sizes, then offsets by a prefix sum.
  cl::Buffer scratch_offsets = kernels.array<cl_int>(rows + 1, "product hash table offsets");
  cl::Kernel bounds = kernels.kernel("spgemm.cl", "spgemm_bounds");
  set_args(bounds, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, bound, scratch_offsets);
  kernels.per_item(bounds, rows);
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
  set_args(count_long, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound,
           scratch_offsets, scratch, C.offsets);
  kernels.per_group(count_long, rows);
  C.nnz = exclusive_scan(kernels, C.offsets, A.rows, "a product");

  C.columns = kernels.array<cl_int>(static_cast<std::size_t>(C.nnz), "product column indices");
  cl::Kernel fill_short = kernels.kernel("spgemm.cl", "spgemm_fill_short");
  set_args(fill_short, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound, C.offsets,
           C.columns);
  kernels.per_item(fill_short, rows);
  cl::Kernel fill_long = kernels.kernel("spgemm.cl", "spgemm_fill_long");
  set_args(fill_long, static_cast<cl_int>(A.rows), A.offsets, A.columns, B.offsets, B.columns, bound,
           scratch_offsets, scratch, C.offsets, C.columns);
  kernels.per_group(fill_long, rows);
  sort_segments(kernels, C.rows, C.offsets, C.columns);
  return C;
}

Matrix multiply(const SetupKernels& kernels, Matrix& A, Matrix& B) {
  if (A.cols() != B.rows())
    throw Error("amg: a device product of a " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                " and a " + std::to_string(B.rows()) + " x " + std::to_string(B.cols()) + " matrix");
  const DevicePattern p = product_pattern(kernels, pattern_of(A), pattern_of(B));
  cl::Buffer values = kernels.array<cl_double>(static_cast<std::size_t>(p.nnz), "product values");
  Matrix C = Matrix::from_device_csr(kernels.shared_context(), p.rows, p.cols, p.offsets, p.columns, values);
  multiply_on_device(A, B, C);
  C.values_written_on_device();
  return C;
}

}  // namespace clkr::detail::amg
