// clkr::Matrix's new values on the same pattern: from the host (update_values, checked for NaN/Inf and,
// from a host matrix, for the same pattern) or written on the device by a computation
// (values_written_on_device); the diagonal and every precision follow.
#include "../runtime/format_number.hpp"
#include "first_rejected_row.hpp"
#include "matrix_impl.hpp"

namespace clkr {

using detail::checked_matrix;
using detail::PartValues;

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
                ", column " + std::to_string(pattern.col_indices[k]) + ") is " + detail::format_number(values[k]) +
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

}  // namespace clkr
