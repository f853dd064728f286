// The launches of strength.cl: roots of the diagonal, marks and counts, two prefix sums (one read), the fill.
#include "device_strength.hpp"

#include "device_scan.hpp"

namespace clkr::detail::amg {

DeviceStrength device_strength(const SetupKernels& kernels, Matrix& A, double eps) {
  const std::int32_t n = A.rows();
  const auto rows = static_cast<std::size_t>(n);
  const cl::Buffer& offsets = A.csr_part().row_offsets;
  const cl::Buffer& cols = A.csr_part().col_indices;
  const cl::Buffer values = A.csr_values(Precision::Double).primary;
  cl::Buffer root = kernels.array<cl_double>(rows, "strength roots");
  cl::Kernel roots = kernels.kernel("strength.cl", "strength_roots");
  set_args(roots, static_cast<cl_int>(n), offsets, cols, values, root);
  kernels.per_item(roots, rows);

  DeviceStrength s;
  s.keep = kernels.array<cl_uchar>(static_cast<std::size_t>(A.nnz()), "strength marks");
  s.graph.rows = s.graph.cols = n;
  s.graph.offsets = kernels.array<cl_int>(rows + 1, "strength graph offsets");
  cl::Buffer f_offsets = kernels.array<cl_int>(rows + 1, "filtered matrix row offsets");
  cl::Kernel mark = kernels.kernel("strength.cl", "strength_mark");
  set_args(mark, static_cast<cl_int>(n), eps, offsets, cols, values, root, s.keep, s.graph.offsets, f_offsets);
  kernels.per_item(mark, rows);
  const auto [graph_nnz, kept] =
      exclusive_scans(kernels, s.graph.offsets, f_offsets, n, "the strength graph", "the filtered matrix");
  s.graph.nnz = graph_nnz;

  s.graph.columns = kernels.array<cl_int>(static_cast<std::size_t>(s.graph.nnz), "strength graph neighbours");
  s.weights = kernels.array<cl_double>(static_cast<std::size_t>(s.graph.nnz), "strength graph weights");
  cl::Buffer f_cols = kernels.array<cl_int>(static_cast<std::size_t>(kept), "filtered matrix columns");
  cl::Buffer f_values = kernels.array<cl_double>(static_cast<std::size_t>(kept), "filtered matrix values");
  cl::Kernel fill = kernels.kernel("strength.cl", "strength_fill");
  set_args(fill, static_cast<cl_int>(n), offsets, cols, values, root, s.keep, s.graph.offsets, s.graph.columns,
           s.weights, f_offsets, f_cols, f_values);
  kernels.per_item(fill, rows);
  s.filtered = std::make_shared<Matrix>(
      Matrix::from_device_csr(kernels.shared_context(), n, A.cols(), kept, f_offsets, f_cols, f_values));
  return s;
}

void refresh_filtered(const SetupKernels& kernels, Matrix& A, const cl::Buffer& keep, Matrix& filtered) {
  cl::Kernel refresh = kernels.kernel("strength.cl", "filtered_values");
  set_args(refresh, static_cast<cl_int>(A.rows()), A.csr_part().row_offsets, A.csr_part().col_indices,
           A.csr_values(Precision::Double).primary, keep, filtered.csr_part().row_offsets,
           filtered.csr_values(Precision::Double).primary);
  kernels.per_item(refresh, static_cast<std::size_t>(A.rows()));
  filtered.values_written_on_device();
}

}  // namespace clkr::detail::amg
