// Internal to src/data: one format of a Matrix on the device (its index arrays and its values in each
// precision), and the two transfers between it and a host CSR matrix: the upload of a format built from
// CSR (matrix_formats.cpp builds the layouts) and the read-back of any format into CSR. Matrix holds one
// DeviceFormat per format it keeps; the values in single and quasi-double are made here on demand.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clkr/data/matrix.hpp"
#include "convert.hpp"
#include "half_values.hpp"
#include "matrix_formats.hpp"
#include "value_upload.hpp"

namespace clkr::detail {

// One array of stored values (a format part) in each precision; a null buffer is a copy not made yet
// (update_values rewrites every copy made, so a made copy stays valid).
struct PartValues {
  std::size_t count = 0;
  std::string what;  // for allocation messages
  cl::Buffer dbl, head, tail;
  // The binary16 copy (ValueStorage::Half) and its scale: made on the first ask, and again on the first
  // ask after new values (half_current false), when the new range may call for another scale.
  cl::Buffer half;
  cl::Buffer half_range;  // the range reduction's partial results, kept for the next remake
  HalfScale half_scale;
  bool half_current = false;
};

struct DeviceFormat {
  FormatShape shape;
  Matrix::CsrPart csr;
  Matrix::EllPart ell;
  Matrix::SellPart sell;
  Matrix::DiaPart dia;
  PartValues csr_values, ell_values;  // ell_values: ELL's, SELL's or DIA's (the column-major part)
  // update_values' way to the device (for a format other than CSR, where each entry is stored), made
  // on the first update.
  std::unique_ptr<ValueUpload> value_upload;
  // CSR: the load-balanced kernels' row blocks by (max_cost, max_rows), made on first use.
  std::map<std::pair<std::int64_t, std::int32_t>, Matrix::RowBlocks> row_blocks;
};

// A new buffer holding `host`, named `what` in allocation messages.
template <class T>
cl::Buffer upload_array(Context& context, ArrayView<T> host, const std::string& what) {
  cl::Buffer b = context.allocate(host.size() * sizeof(T), what);
  write_buffer(context, b, host.data(), host.size());
  return b;
}

// Format f of A on the device, its shape checked against the device and the options first (the
// refusals of format_checks.cpp). CSR uploads A's own arrays: no host copy of a matrix that may be
// most of the host's memory.
DeviceFormat upload_format(Context& context, const CsrView& A, Format f, const MatrixStats& stats,
                           const MatrixOptions& options);

// Format d read back from the device into plain CSR.
HostCsrMatrix read_back_format(Context& context, const DeviceFormat& d, Format f, std::int32_t rows, std::int32_t cols,
                               bool symmetric);

// A CSR part's row offsets read back, in 64 bits whatever their width on the device.
std::vector<std::int64_t> read_offsets(Context& context, const Matrix::CsrPart& part, std::int32_t rows);

// The values of a part in precision p; single and quasi-double are converted on the device from the
// doubles the first time (on devices without fp64 they were uploaded, and double is not there: the
// caller refuses it).
Matrix::Values part_values(Context& context, PartValues& v, Precision p);

// The binary16 copy of a part (single precision's ValueStorage::Half), made (again) when not current,
// scaled by half_scale from the values' range and `floor` (half_values.hpp; NaN: the smallest nonzero
// |value|; not read when the copy is current); where they do not fit, the single values instead
// (Values::storage says which).
Matrix::Values part_half_values(Context& context, PartValues& v, float floor);

// After new values: the single and quasi-double copies made again from a part's doubles (on devices
// with fp64; without, the caller wrote them), the binary16 copy marked for remaking on its next use.
void derive_precisions(Context& context, PartValues& v);

}  // namespace clkr::detail
