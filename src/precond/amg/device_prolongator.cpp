// P_tent's pattern by a prefix sum, its transpose for the aggregates' members, their norms and P_tent's
// values; then A_F P_tent by the device product and the finishing step.
#include "device_prolongator.hpp"

#include "../spectrum.hpp"
#include "device_scan.hpp"
#include "device_spgemm.hpp"

namespace clkr::detail::amg {

DeviceTentative device_tentative(const SetupKernels& kernels, const DeviceAggregates& aggregates, std::int32_t nodes,
                                 const cl::Buffer& B) {
  const auto rows = static_cast<std::size_t>(nodes);
  DevicePattern p;
  p.rows = nodes;
  p.cols = aggregates.count;
  p.offsets = kernels.array<cl_int>(rows + 1, "tentative prolongator row offsets");
  cl::Kernel lengths = kernels.kernel("prolongator.cl", "tentative_row_lengths");
  set_args(lengths, static_cast<cl_int>(nodes), aggregates.of_node, p.offsets);
  kernels.per_item(lengths, rows);
  p.nnz = exclusive_scan(kernels, p.offsets, nodes, "the tentative prolongator");
  p.columns = kernels.array<cl_int>(static_cast<std::size_t>(p.nnz), "tentative prolongator columns");
  cl::Kernel columns = kernels.kernel("prolongator.cl", "tentative_columns");
  set_args(columns, static_cast<cl_int>(nodes), aggregates.of_node, p.offsets, p.columns);
  kernels.per_item(columns, rows);

  // The members of each aggregate, ascending: the rows of P_tent^T.
  const DevicePattern members = transpose_pattern(kernels, p);
  DeviceTentative t;
  t.coarse_B = kernels.array<cl_double>(static_cast<std::size_t>(aggregates.count), "coarse near-null space");
  cl::Kernel norms = kernels.kernel("prolongator.cl", "aggregate_norms");
  set_args(norms, static_cast<cl_int>(aggregates.count), members.offsets, members.columns, B, t.coarse_B);
  kernels.per_item(norms, static_cast<std::size_t>(aggregates.count));
  cl::Buffer values = kernels.array<cl_double>(static_cast<std::size_t>(p.nnz), "tentative prolongator values");
  cl::Kernel fill = kernels.kernel("prolongator.cl", "tentative_values");
  set_args(fill, static_cast<cl_int>(nodes), aggregates.of_node, B, t.coarse_B, p.offsets, values);
  kernels.per_item(fill, rows);
  t.P = std::make_shared<Matrix>(
      Matrix::from_device_csr(kernels.shared_context(), p.rows, p.cols, p.nnz, p.offsets, p.columns, values));
  return t;
}

namespace {

// omega from A_F's Gershgorin bound, then P = P_tent - omega D_F^-1 P where P holds A_F P_tent.
void finish(const SetupKernels& kernels, Matrix& F, Matrix& T, double relaxation, DeviceSmoothed& s) {
  s.rho = gershgorin_bound(F);
  s.omega = s.rho > 0 ? relaxation * (4.0 / 3.0) / s.rho : 0.0;
  Matrix& P = *s.P;
  cl::Kernel kernel = kernels.kernel("prolongator.cl", "smoothing_finish");
  set_args(kernel, static_cast<cl_int>(P.rows()), s.omega, F.csr_part().row_offsets, F.csr_part().col_indices,
           F.csr_values(Precision::Double).primary, T.csr_part().row_offsets, T.csr_part().col_indices,
           T.csr_values(Precision::Double).primary, P.csr_part().row_offsets, P.csr_part().col_indices,
           P.csr_values(Precision::Double).primary);
  kernels.per_item(kernel, static_cast<std::size_t>(P.rows()));
  P.values_written_on_device();
}

}  // namespace

DeviceSmoothed device_smoothed(const SetupKernels& kernels, Matrix& filtered, Matrix& tentative, double relaxation) {
  DeviceSmoothed s;
  s.P = multiply(kernels, filtered, tentative);
  finish(kernels, filtered, tentative, relaxation, s);
  return s;
}

void resmooth(const SetupKernels& kernels, Matrix& filtered, Matrix& tentative, double relaxation,
              DeviceSmoothed& smoothed) {
  multiply_values(kernels, filtered, tentative, *smoothed.P);
  finish(kernels, filtered, tentative, relaxation, smoothed);
}

}  // namespace clkr::detail::amg
