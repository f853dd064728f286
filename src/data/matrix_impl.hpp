// Internal to src/data: clkr::Matrix's state (Matrix::Impl), shared by matrix.cpp (construction,
// formats, parts) and matrix_values.cpp (new values on the same pattern).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../runtime/host_threads.hpp"
#include "../runtime/large_vectors.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/runtime/error.hpp"
#include "convert.hpp"
#include "device_csr_facts.hpp"
#include "device_format.hpp"
#include "half_values.hpp"
#include "matrix_formats.hpp"
#include "value_upload.hpp"

namespace clkr {
namespace detail {

inline double smallest_magnitude(const std::vector<double>& x) {
  double smallest = std::numeric_limits<double>::infinity();
  for (double e : x) smallest = std::min(smallest, std::fabs(e));
  return smallest;
}

// A template so that the private Matrix::Impl need not be named here.
template <class Impl>
Impl& checked_matrix(const std::unique_ptr<Impl>& impl) {
  if (!impl) throw Error("clkr::Matrix used after it was moved from");
  return *impl;
}

}  // namespace detail

struct Matrix::Impl {
  std::shared_ptr<Context> context;
  MatrixOptions options;
  Format format = Format::Csr;
  std::int32_t rows = 0, cols = 0;
  bool symmetric = false;
  MatrixStats stats;
  std::map<Format, detail::DeviceFormat> formats;  // the current format and those kept by convert()
  std::unique_ptr<HostCsrMatrix> host_copy;        // made by host_csr(), or at construction without fp64
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
    const detail::DeviceFormat& d = formats.at(Format::Csr);
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
    smallest_diagonal = detail::smallest_magnitude(diagonal);
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
    smallest_diagonal = detail::smallest_magnitude(diagonal);
  }

  bool fp64() const { return context->info().fp64; }

  std::string matrix_name() const {
    return std::to_string(rows) + " x " + std::to_string(cols) + " matrix (nnz " + std::to_string(stats.nnz) + ")";
  }

  detail::DeviceFormat upload(const CsrView& A, Format f) {
    return detail::upload_format(*context, A, f, stats, options);
  }

  HostCsrMatrix read_back(Format f) const {
    return detail::read_back_format(*context, formats.at(f), f, rows, cols, symmetric);
  }

  detail::DeviceFormat& current() {
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
  void upload_new_values(detail::DeviceFormat& d, const std::vector<double>& values) {
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

  Matrix::Values values(detail::PartValues& v, Precision p, ValueStorage storage) {
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

}  // namespace clkr
