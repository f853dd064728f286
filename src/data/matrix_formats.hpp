// Internal to src/data: the host side of the device matrix formats (sizes, building the CSR/CSR4/
// ELL/HYB arrays from a HostCsrMatrix, and the inverse; SELL's and DIA's in sell_format.hpp and
// dia_format.hpp), kept free of OpenCL so that every layout rule lives in one place and is tested
// through Matrix::to_host.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/csr_view.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/matrix.hpp"

namespace clkr::detail {

// The sizes of one format's arrays, known before anything is built (64-bit: they are checked against
// the 32-bit index range before use).
struct FormatShape {
  Format format = Format::Csr;
  bool has_csr = false;         // CSR, CSR4, HYB's overflow: row offsets, column indices, values
  bool has_ell = false;         // ELL, HYB's regular part: column indices, values
  std::int64_t csr_stored = 0;  // entries of the CSR-like part, padding included
  std::int64_t ell_width = 0;
  std::int64_t ell_pitch = 0;  // rows rounded up to a multiple of 32
  std::int64_t ell_stored() const { return ell_width * ell_pitch; }
  // SELL-C-sigma (sell_format.hpp): slices of sell_slice_height rows, sorted by length within windows
  // of sell_sort_window rows; its padded entries live in HostFormat's ell arrays (column-major within
  // a slice, like ELL's), and in the device format's ELL values.
  bool has_sell = false;
  std::int64_t sell_slice_height = 0, sell_sort_window = 0, sell_stored = 0;
  // DIA (dia_format.hpp): the diagonals holding entries (column - row offsets, ascending), each stored
  // whole at dia_pitch (rows rounded up to 32); its values live in HostFormat's ell arrays and the
  // device format's ELL values, as SELL's do. dia_more: A has more diagonals than were looked for
  // (MatrixOptions::max_dia_diagonals), dia_offsets then only the first found: refused.
  bool has_dia = false, dia_more = false;
  std::vector<std::int32_t> dia_offsets;
  std::int64_t dia_pitch = 0;
  std::int64_t dia_stored() const { return static_cast<std::int64_t>(dia_offsets.size()) * dia_pitch; }
  // Entries of the column-major part (ELL's, SELL's or DIA's), the one update_values scatters into
  // besides CSR.
  std::int64_t padded_stored() const {
    return has_sell ? sell_stored : has_dia ? dia_stored() : has_ell ? ell_stored() : 0;
  }
};

// SELL's slice height C and sort window sigma (from MatrixOptions).
struct SellLayout {
  std::int64_t slice_height = 0, sort_window = 0;
};

// What the formats' shapes depend on besides A: HYB's ELL width, SELL's layout and the most diagonals
// DIA looks for.
struct LayoutChoices {
  std::int64_t hyb_width = 0;
  SellLayout sell;
  std::int64_t dia_max_diagonals = 0;
};
// The choices `options` make, with `hyb_width` for HYB.
LayoutChoices layout_choices(const MatrixOptions& options, std::int64_t hyb_width);

// The shape of `format` for A with these choices (each format reads its own). all_rows: the rows of
// the matrix when A lists only its nonempty ones (statistics of a file's rows: not for SELL and DIA,
// whose shapes depend on where those rows lie, see sell_shape and dia_shape); -1: A.rows.
FormatShape format_shape(const CsrView& A, Format format, const LayoutChoices& layout, std::int64_t all_rows = -1);

// Device bytes of a shape with `value_bytes` per stored value (indices are 4 bytes).
std::int64_t format_bytes(const FormatShape& shape, std::int64_t rows, std::int64_t value_bytes);

// A format's arrays on the host, laid out exactly as on the device.
struct HostFormat {
  FormatShape shape;
  std::vector<std::int32_t> row_offsets, csr_cols;
  std::vector<double> csr_values;
  std::vector<std::int32_t> ell_cols;
  std::vector<double> ell_values;
  // SELL: where each slice's entries start in ell_cols (slices + 1), and the original row of each
  // sorted row (rows).
  std::vector<std::int32_t> sell_slice_offsets, sell_rows;
  // DIA: a bit per slot of ell_values (slot s: bit s % 32 of word s / 32), set where an entry is stored.
  std::vector<std::uint32_t> dia_present;
};

// Builds the arrays of CSR4, ELL, HYB, SELL or DIA (CSR is A's own arrays); the shape must be format_shape's,
// checked to fit 32-bit indices. Padding: CSR4 (and HYB's overflow) pads each row to a multiple of 4
// with value 0 and the row's last column, so a padded entry repeats a column; ELL pads with column -1
// and value 0.
HostFormat build_format(const CsrView& A, const FormatShape& shape);

// The inverse for CSR4, ELL, HYB, SELL and DIA: the matrix in plain CSR, padding dropped (ELL and SELL
// rows end at the first column -1, CSR4 rows at the first column that does not increase, DIA keeps the
// slots whose presence bit is set).
HostCsrMatrix csr_from_format(const HostFormat& h, std::int32_t rows, std::int32_t cols, bool symmetric);

// The ELL width of HYB (choose_hyb_width's rule) from a row-length histogram: rows_of_length[w] = the
// rows of exactly w entries, w up to the longest row, plus one 0 at the end.
std::int32_t hyb_width_from_lengths(std::vector<std::int64_t> rows_of_length, std::int64_t rows);

}  // namespace clkr::detail
