// clkr::Matrix: a sparse matrix on the device in one of the CSR, CSR4, ELL, HYB, SELL and DIA formats, its values
// made in each precision on demand (its state: matrix_impl.hpp; new values: matrix_values.cpp; its
// statistics: matrix_stats.cpp; its refusals: format_checks.cpp; a format's upload and read-back:
// device_format.cpp).
//
// Values: on a device with fp64 the double values are uploaded and the single (= quasi-double head)
// and quasi-double copies are converted from them on the device when first asked for. A device
// without fp64 cannot hold the doubles: the quasi-double values are split on the host and uploaded
// (single is their head), and the host CSR is kept, since it is then the only exact copy. The binary16
// copy of ValueStorage::Half (half_values.hpp) is made from the doubles, or without fp64 from the head.
//
// Format conversion goes through the host: the current format is read back (or the kept host CSR is
// used), the new layout is built by the same builders as the constructor (matrix_formats.cpp), and
// uploaded. Conversions happen once per solver setup, and this keeps a single implementation of every
// layout, the one the tests check through to_host(); a device-side transposition per format pair
// would multiply the kernels for no gain.
#include "clkr/data/matrix.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>

#include "../runtime/text.hpp"
#include "matrix_impl.hpp"
#include "matrix_stats.hpp"
#include "row_blocks.hpp"
#include "row_runs.hpp"

namespace clkr {

std::string to_string(Format f) {
  switch (f) {
    case Format::Csr:
      return "csr";
    case Format::Csr4:
      return "csr4";
    case Format::Ell:
      return "ell";
    case Format::Hyb:
      return "hyb";
    case Format::Sell:
      return "sell";
    case Format::Dia:
      return "dia";
  }
  throw Error("invalid Format value " + std::to_string(static_cast<int>(f)));
}

Format parse_format(const std::string& text) {
  const std::string t = detail::to_lower(text);
  for (Format f : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell, Format::Dia})
    if (t == to_string(f)) return f;
  throw Error("unknown matrix format '" + text + "' (expected csr, csr4, ell, hyb, sell or dia)");
}

using detail::checked_matrix;
using detail::DeviceFormat;
using detail::PartValues;

Matrix::Matrix(std::shared_ptr<Context> context, const HostCsrMatrix& host, Format format, MatrixOptions options) {
  host.validate();
  init(std::move(context), host, format, options);
}

Matrix::Matrix(std::shared_ptr<Context> context, const CsrView& view, Format format, MatrixOptions options) {
  view.validate();
  init(std::move(context), view, format, options);
}

void Matrix::init(std::shared_ptr<Context> context, const CsrView& A, Format format, const MatrixOptions& options) {
  if (!context) throw Error("clkr::Matrix needs a Context (got a null shared_ptr)");
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  m.context = std::move(context);
  m.options = options;
  m.format = format;
  m.rows = A.rows;
  m.cols = A.cols;
  m.symmetric = A.symmetric;
  m.stats = detail::matrix_stats(A, {}, A.rows, options.format_statistics);
  m.find_diagonal(A);
  m.upload_pending = options.defer_upload && options.keep_host_copy;
  if (!m.upload_pending) translate_cl_errors("Matrix upload", [&] { m.formats.emplace(format, m.upload(A, format)); });
  if (!m.fp64() || options.keep_host_copy) m.host_copy = std::make_unique<HostCsrMatrix>(A.to_host());
}

Matrix::Matrix() : impl_(std::make_unique<Impl>()) {}

Matrix Matrix::from_device_csr(std::shared_ptr<Context> context, std::int32_t rows, std::int32_t cols, std::int64_t nnz,
                               cl::Buffer row_offsets, cl::Buffer col_indices, cl::Buffer values,
                               MatrixOptions options) {
  if (!context) throw Error("clkr::Matrix needs a Context (got a null shared_ptr)");
  if (!context->info().fp64)
    throw Error("Matrix::from_device_csr needs fp64, which device " + context->info().name + " does not have");
  if (rows < 0 || cols < 0 || nnz < 0)
    throw Error("Matrix::from_device_csr: " + std::to_string(rows) + " x " + std::to_string(cols) + " with nnz " +
                std::to_string(nnz) + " is no size");
  Matrix matrix;
  Impl& m = *matrix.impl_;
  m.context = std::move(context);
  m.options = options;
  m.rows = rows;
  m.cols = cols;
  m.stats.rows = rows;
  m.stats.cols = cols;
  m.stats.nnz = nnz;
  m.facts_pending = m.diagonal_pending = true;
  translate_cl_errors("Matrix::from_device_csr", [&] {
    DeviceFormat d;
    d.shape.format = Format::Csr;
    d.shape.has_csr = true;
    d.shape.csr_stored = m.stats.nnz;
    d.csr.row_offsets = std::move(row_offsets);
    d.csr.col_indices = std::move(col_indices);
    d.csr.stored = m.stats.nnz;
    d.csr_values.count = static_cast<std::size_t>(m.stats.nnz);
    d.csr_values.what = "matrix CSR values";
    d.csr_values.dbl = std::move(values);
    m.formats.emplace(Format::Csr, std::move(d));
    if (options.keep_host_copy) m.host_copy = std::make_unique<HostCsrMatrix>(m.read_back(Format::Csr));
  });
  return matrix;
}

Matrix::Matrix(Matrix&&) noexcept = default;
Matrix& Matrix::operator=(Matrix&&) noexcept = default;
Matrix::~Matrix() = default;

std::int32_t Matrix::rows() const { return checked_matrix(impl_).rows; }
std::int32_t Matrix::cols() const { return checked_matrix(impl_).cols; }
std::int64_t Matrix::nnz() const { return checked_matrix(impl_).stats.nnz; }
bool Matrix::symmetric() const { return checked_matrix(impl_).symmetric; }
Format Matrix::format() const { return checked_matrix(impl_).format; }
const MatrixStats& Matrix::stats() const {
  Impl& m = checked_matrix(impl_);
  translate_cl_errors("Matrix::stats", [&] { m.ensure_facts(); });
  return m.stats;
}
const std::shared_ptr<Context>& Matrix::context() const { return checked_matrix(impl_).context; }

void Matrix::convert(Format format) { convert(format, checked_matrix(impl_).options.keep_previous_format); }

void Matrix::convert(Format format, bool keep_previous) {
  Impl& m = checked_matrix(impl_);
  if (format == m.format) return;
  translate_cl_errors("Matrix::convert", [&] {
    if (m.formats.count(format)) return;  // kept by an earlier convert()
    m.ensure_facts();                     // the new format's shape needs the row lengths
    const HostCsrMatrix read = m.host_copy ? HostCsrMatrix() : m.read_back(m.format);
    const HostCsrMatrix& host = m.host_copy ? *m.host_copy : read;
    // A matrix made on the device finds its diagonal in the copy read back: past CSR, the device's
    // gather has no CSR values to gather from.
    if (m.diagonal_entry.empty() || m.diagonal_pending) m.find_diagonal(host);
    m.diagonal_pending = false;
    m.formats.emplace(format, m.upload(host, format));
    m.upload_pending = false;  // the new format is on the device now
  });
  if (!keep_previous) m.formats.erase(m.format);
  m.format = format;
}

HostCsrMatrix Matrix::to_host() const {
  const Impl& m = checked_matrix(impl_);
  if (m.upload_pending) return *m.host_copy;
  return translate_cl_errors("Matrix::to_host", [&] { return m.read_back(m.format); });
}

bool Matrix::uploaded() const { return !checked_matrix(impl_).upload_pending; }

const HostCsrMatrix& Matrix::host_csr() const {
  Impl& m = checked_matrix(impl_);
  if (!m.host_copy) m.host_copy = std::make_unique<HostCsrMatrix>(to_host());
  return *m.host_copy;
}

const std::vector<std::int32_t>& Matrix::host_row_runs() const {
  Impl& m = checked_matrix(impl_);
  if (!m.host_row_runs) m.host_row_runs = detail::row_runs(host_csr());
  return *m.host_row_runs;
}

std::vector<double> Matrix::diagonal() const {
  Impl& m = checked_matrix(impl_);
  return translate_cl_errors("Matrix::diagonal", [&] { return m.current_diagonal(); });
}

const Matrix::CsrPart& Matrix::csr_part() const {
  Impl& m = checked_matrix(impl_);
  if (!m.current().shape.has_csr) throw Error("a matrix in format " + to_string(m.format) + " has no CSR part");
  return m.current().csr;
}

const Matrix::EllPart& Matrix::ell_part() const {
  Impl& m = checked_matrix(impl_);
  if (!m.current().shape.has_ell) throw Error("a matrix in format " + to_string(m.format) + " has no ELL part");
  return m.current().ell;
}

const Matrix::SellPart& Matrix::sell_part() const {
  Impl& m = checked_matrix(impl_);
  if (!m.current().shape.has_sell) throw Error("a matrix in format " + to_string(m.format) + " has no SELL part");
  return m.current().sell;
}

const Matrix::DiaPart& Matrix::dia_part() const {
  Impl& m = checked_matrix(impl_);
  if (!m.current().shape.has_dia) throw Error("a matrix in format " + to_string(m.format) + " has no DIA part");
  return m.current().dia;
}

Matrix::Values Matrix::dia_values(Precision p, ValueStorage storage) {
  Impl& m = checked_matrix(impl_);
  dia_part();
  return translate_cl_errors("Matrix::dia_values", [&] { return m.values(m.current().ell_values, p, storage); });
}

Matrix::Values Matrix::sell_values(Precision p, ValueStorage storage) {
  Impl& m = checked_matrix(impl_);
  sell_part();
  return translate_cl_errors("Matrix::sell_values", [&] { return m.values(m.current().ell_values, p, storage); });
}

Matrix::Values Matrix::csr_values(Precision p, ValueStorage storage) {
  Impl& m = checked_matrix(impl_);
  csr_part();
  return translate_cl_errors("Matrix::csr_values", [&] { return m.values(m.current().csr_values, p, storage); });
}

ValueStorage Matrix::value_storage(ValueStorage wanted) {
  if (wanted == ValueStorage::Working) return wanted;
  Impl& m = checked_matrix(impl_);
  // The part SpMV reads most: CSR's for CSR and CSR4, the column-major one for the others (HYB's ELL).
  const bool csr = m.format == Format::Csr || m.format == Format::Csr4;
  return translate_cl_errors("Matrix::value_storage", [&] {
    return m.values(csr ? m.current().csr_values : m.current().ell_values, Precision::Single, wanted).storage;
  });
}

std::string offset_build_option(const Matrix& A) {
  return A.format() == Format::Csr && A.csr_part().wide_offsets ? " -DWIDE_OFFSETS" : "";
}

const Matrix::RowBlocks& Matrix::csr_row_blocks(const RowBlockShape& shape) {
  Impl& m = checked_matrix(impl_);
  if (m.format != Format::Csr)
    throw Error("Matrix::csr_row_blocks: the load-balanced kernels' row blocks are for CSR, not " +
                to_string(m.format));
  DeviceFormat& d = m.current();
  const auto key = std::make_pair(shape.max_cost, shape.max_rows);
  if (const auto it = d.row_blocks.find(key); it != d.row_blocks.end()) return it->second;
  return translate_cl_errors("Matrix::csr_row_blocks", [&]() -> const RowBlocks& {
    const std::vector<std::int64_t> offsets =
        m.host_copy ? m.host_copy->row_offsets : detail::read_offsets(*m.context, d.csr, m.rows);
    const std::vector<std::int32_t> first_rows = detail::row_blocks(offsets, shape);
    RowBlocks blocks;
    blocks.count = static_cast<std::int32_t>(first_rows.size()) - 1;
    blocks.first_rows = detail::upload_array<std::int32_t>(*m.context, first_rows, "matrix CSR row blocks");
    return d.row_blocks.emplace(key, std::move(blocks)).first->second;
  });
}

Matrix::Values Matrix::ell_values(Precision p, ValueStorage storage) {
  Impl& m = checked_matrix(impl_);
  ell_part();
  return translate_cl_errors("Matrix::ell_values", [&] { return m.values(m.current().ell_values, p, storage); });
}

}  // namespace clkr
