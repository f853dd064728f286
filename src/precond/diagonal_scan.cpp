// Gershgorin's bound, the diagonal's check and 1 / diag(A): the host loop and the launch of
// gershgorin_partial_max (kernels/precond/gershgorin.cl), whose partial maxima the host reduces.
#include "diagonal_scan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../runtime/host_threads.hpp"
#include "any_format_args.hpp"
#include "clkr/blas/kernel_args.hpp"

namespace clkr::detail {

DiagonalScan scan_diagonal(const HostCsrMatrix& A, std::vector<double>* dinv) {
  if (dinv) dinv->resize(static_cast<std::size_t>(A.rows));
  double bound = 0;
  std::int64_t bad = A.rows;
#pragma omp parallel for reduction(max : bound) reduction(min : bad) schedule(static)
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double diagonal = 0, sum = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += std::abs(A.values[k]);
      if (A.col_indices[k] == i) diagonal += A.values[k];
    }
    if (diagonal != 0) bound = std::max(bound, sum / std::abs(diagonal));
    if (!(diagonal > 0 && std::isfinite(diagonal))) bad = std::min<std::int64_t>(bad, i);
    if (dinv) (*dinv)[static_cast<std::size_t>(i)] = 1.0 / diagonal;
  }
  DiagonalScan scan;
  scan.gershgorin = bound;
  if (bad < A.rows) {
    scan.first_bad_row = bad;
    for (std::int64_t k = A.row_offsets[bad]; k < A.row_offsets[bad + 1]; ++k)
      if (A.col_indices[k] == bad) scan.bad_value += A.values[k];
  }
  return scan;
}

namespace {
constexpr std::size_t kScanGroup = 256;  // gershgorin_partial_max's work-group (its WG)
}  // namespace

bool diagonal_scan_on_device(const Matrix& A, Location where) {
  // The kernel reads CSR-like and ELL parts (any_format_args) and DIA's diagonals; SELL's slices, a
  // layout of their own, are scanned on the host.
  const DeviceInfo& info = A.context()->info();
  return where == Location::Device && info.fp64 && info.max_work_group_size >= kScanGroup && A.format() != Format::Sell;
}

std::int64_t first_nonpositive_diagonal(Matrix& A, Location where, double* value) {
  if (diagonal_scan_on_device(A, where) && scan_diagonal(A, nullptr, Location::Device).first_bad_row < 0) return -1;
  const std::vector<double> d = A.diagonal();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] > 0) continue;
    *value = d[i];
    return static_cast<std::int64_t>(i);
  }
  return -1;
}

DiagonalScanInFlight start_diagonal_scan(Matrix& A, Vector* dinv, Location where, const HostCsrMatrix* host,
                                         DiagonalScanBuffers* kept) {
  DiagonalScanInFlight scan;
  Context& context = *A.context();
  const std::size_t local = kScanGroup;
  if (!diagonal_scan_on_device(A, where)) {
    std::vector<double> inverse;
    scan.result_ = scan_diagonal(host ? *host : A.host_csr(), dinv ? &inverse : nullptr);
    // A device's smoother or solve comes next: the scan's workers must not spin through it.
    if (where == Location::Device) release_host_threads();
    if (dinv) dinv->assign(inverse);
    return scan;
  }
  const std::size_t rows = static_cast<std::size_t>(A.rows());
  if (rows == 0) return scan;
  const std::size_t groups =
      std::min<std::size_t>(std::max<std::size_t>(context.info().compute_units, 1) * 8, (rows + local - 1) / local);
  cl::Kernel kernel = context.kernel(
      "precond/gershgorin.cl", "gershgorin_partial_max",
      precision_build_option(Precision::Double) + " -DWG=" + std::to_string(local) + offset_build_option(A));
  DiagonalScanBuffers made;
  DiagonalScanBuffers& buffers = kept ? *kept : made;
  if (buffers.groups < groups) {
    buffers.maxima = context.allocate(groups * sizeof(double), "gershgorin partial maxima");
    buffers.bad_rows = context.allocate(groups * sizeof(cl_int), "gershgorin partial bad rows");
    buffers.groups = groups;
  }
  const cl::Buffer& partial = buffers.maxima;
  const cl::Buffer& partial_bad = buffers.bad_rows;
  KernelArgs args(kernel, Precision::Double);
  args.value(static_cast<cl_int>(rows));
  add_any_format_or_dia_args(args, A);
  args.value(dinv ? dinv->device(Precision::Double, Access::Write).primary : cl::Buffer());
  args.value(partial).value(partial_bad);
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local));
  scan.A_ = &A;
  scan.groups_ = groups;
  scan.maxima_.enqueue(context, partial, groups * sizeof(double));
  scan.bad_.enqueue(context, partial_bad, groups * sizeof(cl_int));
  return scan;
}

DiagonalScan DiagonalScanInFlight::collect() {
  if (!A_) return result_;
  DiagonalScan scan;
  std::int64_t first_bad = A_->rows();
  for (std::size_t g = 0; g < groups_; ++g) {
    scan.gershgorin = std::max(scan.gershgorin, maxima_.at<double>(g));
    first_bad = std::min<std::int64_t>(first_bad, bad_.at<cl_int>(g));
  }
  if (first_bad < A_->rows()) {
    scan.first_bad_row = first_bad;
    scan.bad_value = A_->diagonal()[static_cast<std::size_t>(first_bad)];
  }
  A_ = nullptr;
  result_ = scan;
  return scan;
}

DiagonalScan scan_diagonal(Matrix& A, Vector* dinv, Location where, const HostCsrMatrix* host) {
  DiagonalScanInFlight scan = start_diagonal_scan(A, dinv, where, host);
  if (scan.in_flight()) A.context()->finish();
  return scan.collect();
}

}  // namespace clkr::detail
