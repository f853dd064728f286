// clkr::Matrix: a sparse matrix on the device in one of the CSR, CSR4, ELL, HYB, SELL and DIA formats, its values
// made in each precision on demand (its statistics: matrix_stats.cpp; its refusals: format_checks.cpp; a
// format's upload and read-back: device_format.cpp).
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
#include <cstdio>
#include <limits>

#include "../runtime/host_threads.hpp"
#include "../runtime/large_vectors.hpp"
#include "../runtime/text.hpp"
#include "clkr/runtime/error.hpp"
#include "convert.hpp"
#include "device_csr_facts.hpp"
#include "device_format.hpp"
#include "first_rejected_row.hpp"
#include "half_values.hpp"
#include "matrix_formats.hpp"
#include "matrix_stats.hpp"
#include "row_blocks.hpp"
#include "row_runs.hpp"
#include "value_upload.hpp"

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

namespace {

std::string number(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

using detail::DeviceFormat;
using detail::PartValues;

namespace {

double smallest_magnitude(const std::vector<double>& x) {
  double smallest = std::numeric_limits<double>::infinity();
  for (double e : x) smallest = std::min(smallest, std::fabs(e));
  return smallest;
}

}  // namespace

struct Matrix::Impl {
  std::shared_ptr<Context> context;
  MatrixOptions options;
  Format format = Format::Csr;
  std::int32_t rows = 0, cols = 0;
  bool symmetric = false;
  MatrixStats stats;
  std::map<Format, DeviceFormat> formats;    // the current format and those kept by convert()
  std::unique_ptr<HostCsrMatrix> host_copy;  // made by host_csr(), or at construction without fp64
  // Made by host_row_runs() from host_copy; the pattern never changes, so neither do they.
  std::optional<std::vector<std::int32_t>> host_row_runs;
  // MatrixOptions::defer_upload: `format` is not on the device yet; host_copy is the matrix until
  // current() builds it there.
  bool upload_pending = false;
  // The diagonal, and where each row's diagonal entry sits among the CSR entries (-1: none), found at
  // construction from host arrays: preconditioners ask for the diagonal, and reading a device format
  // back for it would cost a transfer and a conversion of the whole matrix. A matrix made on the device
  // (from_device_csr) finds both there, and only when asked (an AMG setup makes a dozen matrices a
  // level, of which a few are ever asked): its stats beyond the sizes wait in `facts_pending`, its
  // diagonal, like that of values written on the device, in `diagonal_pending`.
  std::vector<double> diagonal;
  // min |diagonal[i]| (0 when an entry is zero or absent), found in the loops that fill `diagonal`:
  // the binary16 copy's floor (half_floor) then costs no pass over the rows.
  double smallest_diagonal = 0;
  std::vector<std::int64_t> diagonal_entry;   // empty for a matrix made on the device
  cl::Buffer diagonal_entry_device;           // made from diagonal_entry, or by the device's facts
  cl::Buffer floor_gathered, floor_partials;  // half_floor's work buffers, kept across value updates
  bool facts_pending = false, diagonal_pending = false;

  // The stats (and diagonal_entry_device) of a matrix made on the device, found there on first use.
  void ensure_facts() {
    if (!facts_pending) return;
    const DeviceFormat& d = formats.at(Format::Csr);
    detail::DeviceCsrFacts facts =
        detail::device_csr_facts(*context, rows, cols, stats.nnz, d.csr.row_offsets, d.csr.col_indices);
    stats = std::move(facts.stats);
    diagonal_entry_device = std::move(facts.diagonal_entry);
    facts_pending = false;
  }

  // The diagonal, gathered on the device when values were made or written there since it was last asked.
  const std::vector<double>& current_diagonal() {
    if (!diagonal_pending) return diagonal;
    diagonal =
        detail::device_diagonal(*context, rows, cols, formats.at(Format::Csr).csr_values.dbl, device_diagonal_entry());
    smallest_diagonal = smallest_magnitude(diagonal);
    diagonal_pending = false;
    return diagonal;
  }

  // Where each row's diagonal entry sits, on the device (for a diagonal pending there).
  const cl::Buffer& device_diagonal_entry() {
    if (!diagonal_entry_device()) {
      if (facts_pending) {
        ensure_facts();
      } else {
        // The device gather indexes in 32 bits: values_written_on_device refuses wide matrices.
        const std::vector<std::int32_t> narrow(diagonal_entry.begin(), diagonal_entry.end());
        diagonal_entry_device = detail::upload_array<std::int32_t>(*context, narrow, "matrix diagonal index");
      }
    }
    return diagonal_entry_device;
  }

  void find_diagonal(const CsrView& A) {
    detail::assign_large(diagonal, static_cast<std::size_t>(A.rows), 0.0);
    detail::assign_large(diagonal_entry, static_cast<std::size_t>(A.rows), std::int64_t{-1});
    for (std::int32_t i = 0; i < std::min(A.rows, A.cols); ++i) {
      const auto begin = A.col_indices.begin() + A.row_offsets[i];
      const auto end = A.col_indices.begin() + A.row_offsets[i + 1];
      const auto at = std::lower_bound(begin, end, i);
      if (at == end || *at != i) continue;
      diagonal_entry[i] = at - A.col_indices.begin();
      diagonal[i] = A.values[diagonal_entry[i]];
    }
    smallest_diagonal = smallest_magnitude(diagonal);
  }

  bool fp64() const { return context->info().fp64; }

  std::string matrix_name() const {
    return std::to_string(rows) + " x " + std::to_string(cols) + " matrix (nnz " + std::to_string(stats.nnz) + ")";
  }

  DeviceFormat upload(const CsrView& A, Format f) { return detail::upload_format(*context, A, f, stats, options); }

  HostCsrMatrix read_back(Format f) const {
    return detail::read_back_format(*context, formats.at(f), f, rows, cols, symmetric);
  }

  DeviceFormat& current() {
    if (upload_pending) {
      translate_cl_errors("Matrix upload", [&] { formats.emplace(format, upload(*host_copy, format)); });
      upload_pending = false;
    }
    return formats.at(format);
  }

  // The pattern (and the values as stored now) in CSR: the host copy when there is one.
  HostCsrMatrix csr_now() const { return host_copy ? *host_copy : read_back(format); }

  // Where each CSR entry sits in the current format's arrays: the format built from A's pattern with
  // entry k's value set to k + 1 (padding stays 0).
  std::vector<std::int64_t> storage_slots(const HostCsrMatrix& pattern) const {
    HostCsrMatrix numbered = pattern;
    for (std::size_t k = 0; k < numbered.values.size(); ++k) numbered.values[k] = static_cast<double>(k + 1);
    const detail::HostFormat h = detail::build_format(numbered, formats.at(format).shape);
    std::vector<std::int64_t> slots(numbered.values.size(), 0);
    for (std::size_t e = 0; e < h.csr_values.size(); ++e)
      if (h.csr_values[e] > 0) slots[static_cast<std::size_t>(h.csr_values[e]) - 1] = -static_cast<std::int64_t>(e) - 1;
    for (std::size_t e = 0; e < h.ell_values.size(); ++e)
      if (h.ell_values[e] > 0) slots[static_cast<std::size_t>(h.ell_values[e]) - 1] = static_cast<std::int64_t>(e);
    return slots;
  }

  // New values (CSR order) into the current format's values, and every precision made from them.
  void upload_new_values(DeviceFormat& d, const std::vector<double>& values) {
    if (!d.value_upload && format == Format::Csr) {
      d.value_upload = std::make_unique<detail::ValueUpload>(context, values.size());
    } else if (!d.value_upload) {  // the format built once more from the pattern, numbered, tells where entries go
      const std::vector<std::int64_t> slots = storage_slots(csr_now());
      detail::release_host_threads();  // the build's workers: the uploads and the scatter come next
      d.value_upload = std::make_unique<detail::ValueUpload>(context, slots, options.wide_offsets);
    }
    if (fp64()) {
      d.value_upload->upload(values, {d.ell_values.dbl, {}}, {d.csr_values.dbl, {}});
      detail::derive_precisions(*context, d.csr_values);
      detail::derive_precisions(*context, d.ell_values);
    } else {
      d.value_upload->upload(values, {d.ell_values.head, d.ell_values.tail}, {d.csr_values.head, d.csr_values.tail});
      detail::derive_precisions(*context, d.csr_values);  // the binary16 copies, remade on their next use
      detail::derive_precisions(*context, d.ell_values);
    }
  }

  Matrix::Values values(PartValues& v, Precision p, ValueStorage storage) {
    if (p == Precision::Double && !fp64())
      throw Error("device " + context->info().name + " has no fp64: the " + matrix_name() +
                  " has no double values there (use single or quasi-double)");
    if (storage == ValueStorage::Working) return detail::part_values(*context, v, p);
    if (p != Precision::Single)
      throw Error("the " + matrix_name() + ": half-precision values are read by single-precision kernels, not " +
                  to_string(p) + " ones");
    // The floor scans the diagonal: only when the copy is (re)made, not on every SpMV that asks.
    return detail::part_half_values(*context, v, v.half_current ? 0.0f : half_floor());
  }

  // What must stay a normal binary16 number (Matrix::csr_values says why): the smallest |diagonal entry|
  // of a square matrix with a full diagonal, else NaN (the smallest nonzero value, found on the device).
  // A diagonal pending on the device is reduced there: reading it back would move 8 bytes a row (an AMG
  // update asks this of every level).
  float half_floor() {
    if (rows != cols || rows == 0) return std::numeric_limits<float>::quiet_NaN();
    const double smallest =
        diagonal_pending ? detail::device_smallest_diagonal(*context, rows, formats.at(Format::Csr).csr_values.dbl,
                                                            device_diagonal_entry(), floor_gathered, floor_partials)
                         : smallest_diagonal;
    return smallest > 0 ? static_cast<float>(smallest) : std::numeric_limits<float>::quiet_NaN();
  }
};

namespace {

// A template so that the private Matrix::Impl need not be named here.
template <class Impl>
Impl& checked_matrix(const std::unique_ptr<Impl>& impl) {
  if (!impl) throw Error("clkr::Matrix used after it was moved from");
  return *impl;
}

}  // namespace

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

void Matrix::update_values(const std::vector<double>& values) {
  Impl& m = checked_matrix(impl_);
  if (static_cast<std::int64_t>(values.size()) != m.stats.nnz)
    throw Error("Matrix::update_values: " + std::to_string(values.size()) + " values given for a " + m.matrix_name() +
                " (one per stored entry, in CSR order, is expected)");
  // The first entry that is not finite, by all cores for large matrices (first_rejected_row's rows are
  // entries here).
  const std::int64_t bad = detail::first_rejected_row(static_cast<std::int64_t>(values.size()),
                                                      [&](std::int64_t k) { return !std::isfinite(values[k]); });
  detail::release_host_threads();  // the check's workers: the device's turn comes next
  if (bad < static_cast<std::int64_t>(values.size())) {
    const std::size_t k = static_cast<std::size_t>(bad);
    const HostCsrMatrix pattern = translate_cl_errors("Matrix::update_values", [&] { return m.csr_now(); });
    const auto row =
        std::upper_bound(pattern.row_offsets.begin(), pattern.row_offsets.end(), static_cast<std::int64_t>(k)) -
        pattern.row_offsets.begin() - 1;
    throw Error("Matrix::update_values: the value of entry " + std::to_string(k) + " (row " + std::to_string(row) +
                ", column " + std::to_string(pattern.col_indices[k]) + ") is " + number(values[k]) +
                ", not a finite number");
  }
  translate_cl_errors("Matrix::update_values", [&] {
    if (!values.empty() && !m.upload_pending) m.upload_new_values(m.current(), values);
    // Formats kept by convert() would now hold the old values.
    for (auto it = m.formats.begin(); it != m.formats.end();)
      it = it->first == m.format ? std::next(it) : m.formats.erase(it);
    if (m.host_copy) m.host_copy->values = values;
    if (m.diagonal_entry.empty() && m.rows > 0) {  // made on the device: gathered there when asked for
      m.diagonal_pending = true;
      return;
    }
    // While the device scatters: one value per row, spread over the whole array (poisson3d:256 reads
    // nearly all its 0.9 GB), so by all cores for large matrices, which then hand the device its turn.
    m.diagonal.resize(m.diagonal_entry.size());
    const std::int64_t rows = static_cast<std::int64_t>(m.diagonal.size());
    double smallest = std::numeric_limits<double>::infinity();
#pragma omp parallel for schedule(static) reduction(min : smallest) if (rows > (std::int64_t{1} << 16))
    for (std::int64_t i = 0; i < rows; ++i) {
      m.diagonal[i] = m.diagonal_entry[i] >= 0 ? values[static_cast<std::size_t>(m.diagonal_entry[i])] : 0.0;
      smallest = std::min(smallest, std::fabs(m.diagonal[i]));
    }
    m.smallest_diagonal = smallest;
    detail::release_host_threads();
    m.diagonal_pending = false;
  });
}

void Matrix::values_written_on_device() {
  Impl& m = checked_matrix(impl_);
  if (m.format != Format::Csr || !m.fp64())
    throw Error("Matrix::values_written_on_device: needs a matrix in CSR on a device with fp64 (this one is " +
                to_string(m.format) + " on " + m.context->info().name + ")");
  if (m.current().csr.wide_offsets)
    throw Error("Matrix::values_written_on_device: the device diagonal gather indexes entries in 32 bits, and this " +
                m.matrix_name() + " has 64-bit row offsets");
  translate_cl_errors("Matrix::values_written_on_device", [&] {
    Context& context = *m.context;
    PartValues& v = m.current().csr_values;
    detail::derive_precisions(*m.context, v);
    m.diagonal_pending = true;  // gathered when asked for
    for (auto it = m.formats.begin(); it != m.formats.end();)
      it = it->first == m.format ? std::next(it) : m.formats.erase(it);
    if (m.host_copy) detail::read_buffer(context, v.dbl, m.host_copy->values.data(), v.count);
  });
}

void Matrix::update_values(const HostCsrMatrix& same_pattern) {
  Impl& m = checked_matrix(impl_);
  if (same_pattern.rows != m.rows || same_pattern.cols != m.cols || same_pattern.nnz() != m.stats.nnz)
    throw Error("Matrix::update_values: the new matrix is " + std::to_string(same_pattern.rows) + " x " +
                std::to_string(same_pattern.cols) + " with nnz " + std::to_string(same_pattern.nnz()) + ", not a " +
                m.matrix_name() + ": a pattern change needs a new Matrix");
  const HostCsrMatrix pattern = translate_cl_errors("Matrix::update_values", [&] { return m.csr_now(); });
  if (same_pattern.row_offsets.size() != pattern.row_offsets.size() ||
      same_pattern.col_indices.size() != pattern.col_indices.size())
    throw Error("Matrix::update_values: the new matrix's CSR arrays have the wrong sizes");
  for (std::int32_t i = 0; i < m.rows; ++i) {
    const std::int64_t begin = pattern.row_offsets[i], end = pattern.row_offsets[i + 1];
    bool same = same_pattern.row_offsets[i] == begin && same_pattern.row_offsets[i + 1] == end;
    for (std::int64_t k = begin; same && k < end; ++k) same = same_pattern.col_indices[k] == pattern.col_indices[k];
    if (!same)
      throw Error("Matrix::update_values: row " + std::to_string(i) +
                  " of the new matrix has another sparsity pattern than the matrix's: a pattern change needs a new "
                  "Matrix");
  }
  update_values(same_pattern.values);
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
