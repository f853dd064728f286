// A^T by counting, a prefix sum, an atomic scatter and a sort of each row (transpose.cl,
// segment_sort.cl), then the values by bisection into the sorted rows.
#include "device_transpose.hpp"

#include "device_scan.hpp"

namespace clkr::detail::amg {

void sort_segments(const SetupKernels& kernels, std::int32_t segments, const cl::Buffer& offsets,
                   const cl::Buffer& keys) {
  cl::Kernel short_rows = kernels.kernel("segment_sort.cl", "segment_sort_short");
  set_args(short_rows, static_cast<cl_int>(segments), offsets, keys);
  kernels.per_item(short_rows, static_cast<std::size_t>(segments));
  cl::Kernel long_rows = kernels.kernel("segment_sort.cl", "segment_sort_long");
  set_args(long_rows, static_cast<cl_int>(segments), offsets, keys);
  kernels.per_group(long_rows, static_cast<std::size_t>(segments));
}

DevicePattern transpose_pattern(const SetupKernels& kernels, const DevicePattern& A) {
  DevicePattern t;
  t.rows = A.cols;
  t.cols = A.rows;
  t.offsets = kernels.array<cl_int>(static_cast<std::size_t>(A.cols) + 1, "transpose row offsets");
  kernels.fill(t.offsets, cl_int{0}, static_cast<std::size_t>(A.cols) + 1);
  cl::Kernel count = kernels.kernel("transpose.cl", "transpose_count");
  set_args(count, static_cast<cl_int>(A.nnz), A.columns, t.offsets);
  kernels.per_item(count, static_cast<std::size_t>(A.nnz));
  exclusive_scan_of_known_total(kernels, t.offsets, A.cols);  // as many entries as A
  t.nnz = A.nnz;
  cl::Buffer cursor = kernels.array<cl_int>(static_cast<std::size_t>(A.cols) + 1, "transpose cursor");
  if (A.cols > 0)
    kernels.context().queue().enqueueCopyBuffer(t.offsets, cursor, 0, 0, (static_cast<std::size_t>(A.cols) + 1) * 4);
  t.columns = kernels.array<cl_int>(static_cast<std::size_t>(t.nnz), "transpose column indices");
  cl::Kernel scatter = kernels.kernel("transpose.cl", "transpose_scatter");
  set_args(scatter, static_cast<cl_int>(A.rows), A.offsets, A.columns, cursor, t.columns);
  kernels.per_item(scatter, static_cast<std::size_t>(A.rows));
  sort_segments(kernels, t.rows, t.offsets, t.columns);
  return t;
}

DevicePattern pattern_of(const Matrix& A) {
  DevicePattern p;
  p.rows = A.rows();
  p.cols = A.cols();
  p.nnz = static_cast<std::int32_t>(A.nnz());
  p.offsets = A.csr_part().row_offsets;
  p.columns = A.csr_part().col_indices;
  return p;
}

namespace {

// values of A^T (pattern t) from A's.
void place_values(const SetupKernels& kernels, Matrix& A, const DevicePattern& t, const cl::Buffer& values) {
  cl::Kernel place = kernels.kernel("transpose.cl", "transpose_values");
  set_args(place, static_cast<cl_int>(A.rows()), A.csr_part().row_offsets, A.csr_part().col_indices,
           A.csr_values(Precision::Double).primary, t.offsets, t.columns, values);
  kernels.per_item(place, static_cast<std::size_t>(A.rows()));
}

}  // namespace

Matrix transpose(const SetupKernels& kernels, Matrix& A) {
  const DevicePattern t = transpose_pattern(kernels, pattern_of(A));
  cl::Buffer values = kernels.array<cl_double>(static_cast<std::size_t>(t.nnz), "transpose values");
  place_values(kernels, A, t, values);
  return Matrix::from_device_csr(kernels.shared_context(), t.rows, t.cols, t.nnz, t.offsets, t.columns, values);
}

void transpose_values(const SetupKernels& kernels, Matrix& A, Matrix& At) {
  place_values(kernels, A, pattern_of(At), At.csr_values(Precision::Double).primary);
  At.values_written_on_device();
}

}  // namespace clkr::detail::amg
