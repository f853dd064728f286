// clkr::Matrix: a sparse matrix on a device in one storage format at a time (CSR, CSR4, ELL, HYB, SELL, DIA),
// with values in the precisions solvers ask for (index arrays shared between precisions).
//
// Layouts (all indices 32-bit, 0-based):
//   CSR   row_offsets[rows+1], col_indices[nnz], values[nnz].
//   CSR4  CSR whose every row is padded to a multiple of 4 entries (value 0, column index of a valid
//         column of that row, or 0 for an empty row), so kernels read int4/float4/double4. Offsets
//         are therefore multiples of 4.
//   ELL   width W = longest row; entry k of row i at k*pitch + i (column-major), pitch = rows rounded up
//         to a multiple of 32 for aligned, coalesced reads; padding has column index -1 and value 0.
//   HYB   ELL of width W_ell (see choose_hyb_width) for each row's first W_ell entries, plus a CSR4
//         part over all rows holding the overflow of longer rows.
//   SELL  SELL-C-sigma: rows sorted by length (longest first) within windows of sigma rows, cut into
//         slices of C sorted rows, each slice column-major at the width of its longest row (entry j of
//         its row i at slice_offsets[s] + j*C + i; padding column -1, value 0), and rows[r] the
//         original row of sorted row r: kernels write y[rows[r]], so vectors keep the user's order.
//   DIA   the D diagonals holding entries, offsets[D] (column - row, ascending), each stored whole: the
//         value of diagonal d in row i at d*pitch + i (column-major, pitch = rows rounded up to a
//         multiple of 32), 0 where its column lies outside the matrix or it holds no entry; no column
//         index is read (row i's entry on diagonal d is in column i + offsets[d]). present[] holds a bit
//         per slot (slot s: bit s % 32 of word s / 32) set where the matrix has an entry, for the
//         readers that need the exact pattern (to_host, the AMG setup's CSR copy), never for SpMV.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clkr/data/csr_view.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr {

enum class Format { Csr, Csr4, Ell, Hyb, Sell, Dia };
std::string to_string(Format f);               // "csr", "csr4", "ell", "hyb", "sell", "dia"
Format parse_format(const std::string& text);  // throws clkr::Error on anything else

struct MatrixOptions {
  // Keep the previous format's buffers after convert() (the default frees them: matrices are big).
  bool keep_previous_format = false;
  // HYB: force this ELL width instead of the heuristic.
  std::optional<std::int32_t> hyb_ell_width;
  // ELL, SELL and DIA are refused when their padded size exceeds this many times nnz (suggesting HYB,
  // CSR or another format instead).
  double max_ell_fill_ratio = 3.0;
  // DIA is refused for a matrix whose entries lie on more diagonals than this (the search for them
  // stops there, so a matrix with millions costs no more than one with a few hundred).
  std::int32_t max_dia_diagonals = 256;
  // SELL: rows per slice (C: a GPU's warp, a CPU's vector of values) and the window its rows are
  // sorted in (sigma); the device's choice is in DeviceParams (spmv.sell_*), these are the defaults.
  std::int32_t sell_slice_height = 32;
  std::int32_t sell_sort_window = 4096;
  // Keep the host CSR given to the constructor (host_csr() then never reads the device back): for
  // matrices the host reference backend computes with, such as a preconditioner's on Location::Host.
  bool keep_host_copy = false;
  // With keep_host_copy: build the format on the device on its first use there (an SpMV on the device,
  // a part or its values asked for, a convert()) instead of at construction; until then the host copy
  // is the matrix, and update_values() only changes it. For matrices the host backend computes with and
  // the device may never read: the AMG's levels on Location::Host, whose uploads were 2.5 of bcsstk16's
  // 16.5 ms setup on PoCL. The format's refusals (format_checks) then come at that first use. Ignored
  // without keep_host_copy.
  bool defer_upload = false;
  // 64-bit row offsets on the device even where 32 bits suffice, so that tests run the 64-bit kernels
  // on small matrices. Past 2^31 - 1 entries they are 64-bit anyway; below, 32-bit ones move fewer
  // bytes.
  bool wide_offsets = false;
  // Count what every format would store (MatrixStats::bytes_per_format, diagonals) at construction:
  // what `clkr info` and the solve report print. Off for matrices a computation of the library makes
  // in a format it chose (the AMG's levels, prolongators and node blocks): passes over the entries per
  // format that nothing reads there, a third of the constructor's time on a CPU (bcsstk17, 428,650
  // entries: 1.5 of 4.7 ms on PoCL). Their stats() then hold no bytes_per_format and diagonals -1,
  // as those of from_device_csr.
  bool format_statistics = true;
};

struct MatrixStats {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t min_row_length = 0, max_row_length = 0;
  double mean_row_length = 0;
  std::int64_t empty_rows = 0;
  std::int64_t bandwidth = 0;  // max |i - j| over stored entries
  bool symmetric = false;
  std::int32_t hyb_ell_width = 0;  // what choose_hyb_width picks for this matrix
  // DIA: the diagonals (distinct column - row offsets) holding entries; -1 when unknown: more than
  // kDiagonalsCounted (the count stops there), or a matrix made on the device (from_device_csr).
  static constexpr std::int64_t kDiagonalsCounted = 1024;
  std::int64_t diagonals = -1;
  // Device bytes of each format with double values (indices + values), for `clkr info` (DIA only when
  // its diagonals were counted).
  std::map<Format, std::int64_t> bytes_per_format;
};

MatrixStats compute_stats(const HostCsrMatrix& A);
// The statistics of a matrix of `rows` rows whose nonempty rows are listed: row k of listed_rows is its
// row row_ids[k] (increasing), every other row is empty. What `clkr info` uses for a file declaring far
// more rows than entries, so that nothing is allocated per row.
MatrixStats compute_stats(const HostCsrMatrix& listed_rows, const std::vector<std::int32_t>& row_ids,
                          std::int64_t rows);

// The device bytes a Matrix of A in `format` holds (made by the constructor with default MatrixOptions)
// once it has values in every precision of `precisions`, as it makes them: the double values where the
// device has fp64 (single and quasi-double then converted from them on the device, a head of 4 bytes an
// entry for single, a head and a tail for quasi-double), the quasi-double head and tail where it has
// not. Every buffer counted as Context::allocate sizes it. Throws what the constructor throws for A.
std::int64_t matrix_device_bytes(const CsrView& A, Format format, const std::vector<Precision>& precisions, bool fp64);

// The ELL width for HYB, from the row-length histogram (as CUSP does): the largest width W such that
// at least a fraction max(1/3 ... ) of rows have length >= W; documented in the implementation.
std::int32_t choose_hyb_width(const HostCsrMatrix& A);

class Matrix {
 public:
  Matrix(std::shared_ptr<Context> context, const HostCsrMatrix& host, Format format = Format::Csr,
         MatrixOptions options = {});
  // From arrays the caller owns (validated as CsrView::validate does): uploaded from them directly in
  // CSR, with no host copy in between; other formats build their layout from them.
  Matrix(std::shared_ptr<Context> context, const CsrView& view, Format format = Format::Csr,
         MatrixOptions options = {});
  Matrix(Matrix&&) noexcept;
  Matrix& operator=(Matrix&&) noexcept;
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  ~Matrix();

  // A CSR matrix whose arrays a device computation made (the AMG setup's products), taken as they are:
  // `row_offsets` (rows + 1, the last one `nnz`, which the caller knows from the prefix sum that made
  // them), `col_indices` (ascending within each row, no repeats) and double `values`. Nothing is
  // uploaded or read back here: stats() (its bytes_per_format left empty) are reduced on the device
  // (kernels/data/csr_row_facts.cl) the first time they are asked for (an SpMV asks), and so is
  // diagonal() (one read of it). Needs fp64. The caller vouches for the arrays: they are not validated
  // as a host matrix is.
  static Matrix from_device_csr(std::shared_ptr<Context> context, std::int32_t rows, std::int32_t cols,
                                std::int64_t nnz, cl::Buffer row_offsets, cl::Buffer col_indices, cl::Buffer values,
                                MatrixOptions options = {});

  std::int32_t rows() const;
  std::int32_t cols() const;
  std::int64_t nnz() const;
  bool symmetric() const;
  Format format() const;
  const MatrixStats& stats() const;
  const std::shared_ptr<Context>& context() const;

  // Converts to `format`; the previous format's buffers are freed unless options.keep_previous_format.
  void convert(Format format);
  void convert(Format format, bool keep_previous);

  // The matrix back on the host (from the current format), for tests and writing results.
  HostCsrMatrix to_host() const;
  // The matrix in CSR on the host with double values, kept after first use (the host reference
  // backend computes with it; Matrix keeps it only when asked).
  const HostCsrMatrix& host_csr() const;
  // Runs of consecutive rows with the same columns in host_csr(), for the host backend's SpMV, which
  // reads a run's column indices and x entries once for all its rows (1.16-1.39x on the SuiteSparse
  // structural matrices, whose mesh nodes' unknowns share a pattern): the first row of every run of 1
  // to 3 rows, then rows(); empty where runs would gain nothing (src/data/row_runs.hpp).
  // Made on first use and kept (update_values never changes the pattern).
  const std::vector<std::int32_t>& host_row_runs() const;
  // False while a deferred upload (MatrixOptions::defer_upload) waits for the first device use.
  bool uploaded() const;
  // The diagonal (zeros where absent), for the preconditioners: kept on the host since construction
  // from host arrays (and refreshed by update_values), so asking costs no transfer; where the values
  // were made or written on the device (from_device_csr, values_written_on_device), gathered there and
  // read back on the first ask after.
  std::vector<double> diagonal() const;

  // New values on the same sparsity pattern (the next time step of a simulation): `values` in the order
  // of the CSR entries the matrix was built from (row by row, columns ascending), nnz() of them.
  // Uploads values only, for every precision the matrix already holds, reusing the index arrays and
  // the format's layout (formats other than the current one, kept by convert(), are dropped). The
  // values go up through two pinned host stages of up to 2^21 values each (kept from the first
  // update on); in a format other than CSR a kernel then puts each where the layout stores it, for
  // which the first update also uploads where each entry goes (4 bytes per entry, 8 past 2^31 - 1
  // stored elements) and two device stages as large as the host's. Throws clkr::Error for a wrong
  // count or a NaN/Inf value (naming its row and column); the matrix is then unchanged.
  void update_values(const std::vector<double>& values);
  // The same from a host matrix, refused with clkr::Error naming the first row whose pattern (row
  // offsets, column indices) differs, or the dimensions when they do.
  void update_values(const HostCsrMatrix& same_pattern);
  // For code that computes new values on the device (a preconditioner's numeric refresh): after it
  // wrote the double values of a CSR matrix in place (csr_values(Precision::Double)), brings the rest
  // up to date as update_values does: the single and quasi-double copies, the diagonal (gathered on the
  // device when next asked for), the kept host copy (read back). Throws clkr::Error for another format or without fp64.
  void values_written_on_device();

  // ---- low-level access, for SpMV kernels ----------------------------------------------------------
  struct Values {
    cl::Buffer primary;  // float (single, qd head) or double; binary16 when storage is Half
    cl::Buffer tail;     // quasi-double tail, else null
    // Half: primary holds binary16 numbers h with value h * unscale (a power of two); kernels are
    // built with -DHALF_VALUES and take unscale after the array (kernels/common.cl, MVAL_ARG).
    ValueStorage storage = ValueStorage::Working;
    float unscale = 1;
  };
  struct CsrPart {  // CSR, CSR4, and HYB's overflow part
    cl::Buffer row_offsets, col_indices;
    std::int64_t stored = 0;  // entries stored including padding
    // row_offsets are 64-bit (cl_long; CSR only): kernels that read them are built with
    // offset_build_option(A) and declare them offset_t (kernels/common.cl).
    bool wide_offsets = false;
  };
  struct EllPart {  // ELL, and HYB's regular part
    cl::Buffer col_indices;
    std::int32_t width = 0, pitch = 0;
  };
  struct SellPart {  // SELL; its values are sell_values()
    cl::Buffer slice_offsets, col_indices, rows;
    std::int32_t slice_height = 0, slices = 0;
    std::int64_t stored = 0;  // entries stored including padding
  };
  struct DiaPart {  // DIA; its values are dia_values()
    cl::Buffer offsets, present;
    std::int32_t diagonals = 0, pitch = 0;
    std::int64_t inside = 0;  // slots whose column lies in the matrix (the ones kernels read), padding included
  };
  // Parts of the current format (throws if the format has no such part).
  const CsrPart& csr_part() const;
  const EllPart& ell_part() const;
  const SellPart& sell_part() const;
  const DiaPart& dia_part() const;
  // The values of the current format's part in precision p, created lazily (converted on the
  // device from the double or quasi-double copy). ValueStorage::Half (single precision only): the
  // binary16 copy, made on the first ask and on the first ask after new values, scaled by a power of
  // two: the largest |value| into [2^14, 2^15); it serves where the smallest nonzero diagonal entry
  // (of a square matrix whose diagonal has no zero; else the smallest nonzero |value|) then stays a
  // normal binary16 number (>= 2^-14), which keeps every entry within 2^-11 of its row's diagonal,
  // and elsewhere the single values do (Values::storage says which was given; 2^29 is the ratio of
  // largest value to smallest diagonal entry that fits).
  Values csr_values(Precision p, ValueStorage storage = ValueStorage::Working);
  Values ell_values(Precision p, ValueStorage storage = ValueStorage::Working);
  Values sell_values(Precision p, ValueStorage storage = ValueStorage::Working);
  Values dia_values(Precision p, ValueStorage storage = ValueStorage::Working);
  // The storage the current format's values get when `wanted` is asked for in single precision (Half
  // where they fit, making the copy as above): what an SpMV reads, for its byte count.
  ValueStorage value_storage(ValueStorage wanted);

  // Row blocks of the load-balanced CSR kernels (kernels/spmv/csr_balanced.cl): how the rows are cut
  // (src/data/row_blocks.hpp has the rules), and the blocks' first rows on the device (count + 1 ints,
  // the last one rows()). Made from the row offsets on first use per shape and kept with the CSR format
  // (update_values never changes the pattern). Throws clkr::Error unless the format is CSR.
  struct RowBlockShape {
    std::int64_t max_cost = 0;  // work-group blocks: entries; work-item blocks: entries + rows
    std::int32_t max_rows = 0;  // work-group blocks: at most this many rows (the work-group); 0: work-item blocks
  };
  struct RowBlocks {
    cl::Buffer first_rows;
    std::int32_t count = 0;
  };
  const RowBlocks& csr_row_blocks(const RowBlockShape& shape);

 private:
  void init(std::shared_ptr<Context> context, const CsrView& A, Format format, const MatrixOptions& options);

  struct Impl;
  std::unique_ptr<Impl> impl_;

  Matrix();  // for from_device_csr
};

// The -D option of a kernel that reads A's row offsets: " -DWIDE_OFFSETS" where they are 64-bit (CSR
// past 2^31 - 1 entries, or MatrixOptions::wide_offsets), else nothing (every other format, HYB's and
// CSR4's CSR parts included, is 32-bit).
std::string offset_build_option(const Matrix& A);

}  // namespace clkr
