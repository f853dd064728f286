// Upload of a Matrix format from CSR and its read-back into CSR (see device_format.hpp).
#include "device_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../runtime/host_threads.hpp"
#include "dia_format.hpp"
#include "format_checks.hpp"

namespace clkr::detail {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// Row offsets in the device's width: 64-bit past 2^31 - 1 entries (or when the options ask), else 32-bit,
// converted on the host only where the caller's array has the other width.
cl::Buffer upload_offsets(Context& context, const OffsetView& host, bool wide, const std::string& what) {
  if (wide) {
    if (host.wide()) return upload_array(context, ArrayView<std::int64_t>(host.wide_data(), host.size()), what);
    std::vector<std::int64_t> copy(host.narrow_data(), host.narrow_data() + host.size());
    return upload_array<std::int64_t>(context, copy, what);
  }
  if (!host.wide()) return upload_array(context, ArrayView<std::int32_t>(host.narrow_data(), host.size()), what);
  std::vector<std::int32_t> copy(host.wide_data(), host.wide_data() + host.size());
  return upload_array<std::int32_t>(context, copy, what);
}

// Doubles where the device has fp64, else the quasi-double pair split on the host.
PartValues upload_values(Context& context, ArrayView<double> values, const std::string& what) {
  PartValues v;
  v.count = values.size();
  v.what = what;
  if (context.info().fp64) {
    v.dbl = upload_array(context, values, what + " (double)");
  } else {
    std::vector<float> head(v.count), tail(v.count);
    host_split(values.data(), head.data(), tail.data(), v.count);
    v.head = upload_array<float>(context, head, what + " (quasi-double head)");
    v.tail = upload_array<float>(context, tail, what + " (quasi-double tail)");
  }
  return v;
}

std::vector<double> read_values(Context& context, const PartValues& v) {
  std::vector<double> out(v.count);
  if (v.dbl()) {
    read_buffer(context, v.dbl, out.data(), v.count);
  } else {  // no fp64: the quasi-double values, good to ~2^-48 relative
    std::vector<float> head(v.count), tail(v.count);
    read_buffer(context, v.head, head.data(), v.count);
    read_buffer(context, v.tail, tail.data(), v.count);
    host_merge(head.data(), tail.data(), out.data(), v.count);
  }
  return out;
}

}  // namespace

DeviceFormat upload_format(Context& context, const CsrView& A, Format f, const MatrixStats& stats,
                           const MatrixOptions& options) {
  DeviceFormat d;
  d.shape = checked_shape(A, f, stats, options, context.info());
  const bool plain = f == Format::Csr;
  HostFormat h;
  if (!plain) h = build_format(A, d.shape);
  release_host_threads();  // the validation's and the build's workers: the uploads come next
  const std::string prefix = "matrix " + upper_name(f) + " ";
  if (d.shape.has_csr) {
    const std::string part = prefix + (f == Format::Hyb ? "overflow " : "");
    d.csr.wide_offsets = plain && (options.wide_offsets || A.nnz() > kInt32Max);
    d.csr.row_offsets = upload_offsets(context, plain ? A.row_offsets : OffsetView(h.row_offsets), d.csr.wide_offsets,
                                       part + "row offsets");
    d.csr.col_indices =
        upload_array(context, plain ? A.col_indices : ArrayView<std::int32_t>(h.csr_cols), part + "column indices");
    d.csr.stored = d.shape.csr_stored;
    d.csr_values = upload_values(context, plain ? A.values : ArrayView<double>(h.csr_values), part + "values");
  }
  if (d.shape.has_ell) {
    const std::string part = prefix + (f == Format::Hyb ? "ELL part " : "");
    d.ell.col_indices = upload_array<std::int32_t>(context, h.ell_cols, part + "column indices");
    d.ell.width = static_cast<std::int32_t>(d.shape.ell_width);
    d.ell.pitch = static_cast<std::int32_t>(d.shape.ell_pitch);
    d.ell_values = upload_values(context, h.ell_values, part + "values");
  }
  if (d.shape.has_sell) {
    d.sell.slice_offsets = upload_array<std::int32_t>(context, h.sell_slice_offsets, prefix + "slice offsets");
    d.sell.rows = upload_array<std::int32_t>(context, h.sell_rows, prefix + "row order");
    d.sell.col_indices = upload_array<std::int32_t>(context, h.ell_cols, prefix + "column indices");
    d.sell.slice_height = static_cast<std::int32_t>(d.shape.sell_slice_height);
    d.sell.slices = static_cast<std::int32_t>(h.sell_slice_offsets.size()) - 1;
    d.sell.stored = d.shape.sell_stored;
    d.ell_values = upload_values(context, h.ell_values, prefix + "values");
  }
  if (d.shape.has_dia) {
    d.dia.offsets = upload_array<std::int32_t>(context, d.shape.dia_offsets, prefix + "diagonal offsets");
    d.dia.present = upload_array<std::uint32_t>(context, h.dia_present, prefix + "presence bits");
    d.dia.diagonals = static_cast<std::int32_t>(d.shape.dia_offsets.size());
    d.dia.pitch = static_cast<std::int32_t>(d.shape.dia_pitch);
    d.dia.inside = dia_inside(d.shape, A.rows, A.cols);
    d.ell_values = upload_values(context, h.ell_values, prefix + "values");
  }
  return d;
}

HostCsrMatrix read_back_format(Context& context, const DeviceFormat& d, Format f, std::int32_t rows, std::int32_t cols,
                               bool symmetric) {
  if (f == Format::Csr) {  // straight into the result: no second copy of the matrix
    HostCsrMatrix A;
    A.rows = rows;
    A.cols = cols;
    A.symmetric = symmetric;
    A.row_offsets = read_offsets(context, d.csr, rows);
    A.col_indices.resize(static_cast<std::size_t>(d.shape.csr_stored));
    read_buffer(context, d.csr.col_indices, A.col_indices.data(), A.col_indices.size());
    A.values = read_values(context, d.csr_values);
    return A;
  }
  HostFormat h;
  h.shape = d.shape;
  if (d.shape.has_csr) {
    h.row_offsets.resize(static_cast<std::size_t>(rows) + 1);
    h.csr_cols.resize(static_cast<std::size_t>(d.shape.csr_stored));
    read_buffer(context, d.csr.row_offsets, h.row_offsets.data(), h.row_offsets.size());
    read_buffer(context, d.csr.col_indices, h.csr_cols.data(), h.csr_cols.size());
    h.csr_values = read_values(context, d.csr_values);
  }
  if (d.shape.has_ell) {
    h.ell_cols.resize(static_cast<std::size_t>(d.shape.ell_stored()));
    read_buffer(context, d.ell.col_indices, h.ell_cols.data(), h.ell_cols.size());
    h.ell_values = read_values(context, d.ell_values);
  }
  if (d.shape.has_sell) {
    h.sell_slice_offsets.resize(static_cast<std::size_t>(d.sell.slices) + 1);
    h.sell_rows.resize(static_cast<std::size_t>(rows));
    h.ell_cols.resize(static_cast<std::size_t>(d.shape.sell_stored));
    read_buffer(context, d.sell.slice_offsets, h.sell_slice_offsets.data(), h.sell_slice_offsets.size());
    read_buffer(context, d.sell.rows, h.sell_rows.data(), h.sell_rows.size());
    read_buffer(context, d.sell.col_indices, h.ell_cols.data(), h.ell_cols.size());
    h.ell_values = read_values(context, d.ell_values);
  }
  if (d.shape.has_dia) {
    h.dia_present.resize(static_cast<std::size_t>(dia_present_words(d.shape)));
    read_buffer(context, d.dia.present, h.dia_present.data(), h.dia_present.size());
    h.ell_values = read_values(context, d.ell_values);
  }
  return csr_from_format(h, rows, cols, symmetric);
}

Matrix::Values part_values(Context& context, PartValues& v, Precision p) {
  if (p == Precision::Double) return {v.dbl, cl::Buffer()};
  if (p == Precision::Single && !v.head()) {
    cl::Buffer head = context.allocate(v.count * 4, v.what + " (single)");
    device_narrow(context, v.dbl, head, v.count);
    v.head = head;
  }
  if (p == Precision::QuasiDouble && !v.tail()) {
    cl::Buffer head = v.head() ? v.head : context.allocate(v.count * 4, v.what + " (quasi-double head)");
    cl::Buffer tail = context.allocate(v.count * 4, v.what + " (quasi-double tail)");
    device_split(context, v.dbl, head, tail, v.count);
    v.head = head;
    v.tail = tail;
  }
  return {v.head, p == Precision::QuasiDouble ? v.tail : cl::Buffer()};
}

std::vector<std::int64_t> read_offsets(Context& context, const Matrix::CsrPart& part, std::int32_t rows) {
  const auto n = static_cast<std::size_t>(rows) + 1;
  std::vector<std::int64_t> offsets(n);
  if (part.wide_offsets) {
    read_buffer(context, part.row_offsets, offsets.data(), n);
  } else {
    std::vector<std::int32_t> narrow(n);
    read_buffer(context, part.row_offsets, narrow.data(), n);
    std::copy(narrow.begin(), narrow.end(), offsets.begin());
  }
  return offsets;
}

Matrix::Values part_half_values(Context& context, PartValues& v, float floor) {
  if (!v.half_current) {
    // From the doubles with fp64, else from the uploaded quasi-double head (the single copy).
    const bool from_double = static_cast<bool>(v.dbl());
    const cl::Buffer& source = from_double ? v.dbl : v.head;
    const ValueRange range = device_value_range(context, source, from_double, v.count, v.half_range);
    v.half_scale = half_scale(range.largest, std::isnan(floor) ? range.smallest_nonzero : floor);
    if (v.half_scale.fits) {
      if (!v.half()) v.half = context.allocate(v.count * 2, v.what + " (half)");
      device_half_values(context, source, from_double, v.half, v.count, v.half_scale.exponent);
    } else {
      v.half = cl::Buffer();  // the single values serve instead
    }
    v.half_current = true;
  }
  if (!v.half_scale.fits) return part_values(context, v, Precision::Single);
  Matrix::Values values{v.half, cl::Buffer()};
  values.storage = ValueStorage::Half;
  values.unscale = std::ldexp(1.0f, -v.half_scale.exponent);
  return values;
}

void derive_precisions(Context& context, PartValues& v) {
  if (v.dbl() && v.tail()) {
    device_split(context, v.dbl, v.head, v.tail, v.count);
  } else if (v.dbl() && v.head()) {
    device_narrow(context, v.dbl, v.head, v.count);
  }
  v.half_current = false;
}

}  // namespace clkr::detail
