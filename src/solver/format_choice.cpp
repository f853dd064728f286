// choose_format: the storage format for a matrix on a device, from its row-length statistics and the
// device's parameters (docs/performance.md measures the choices).
#include "clkr/solver/format_choice.hpp"

#include <cctype>
#include <cmath>
#include <limits>

#include "../runtime/format_number.hpp"
#include "../runtime/text.hpp"
#include "clkr/blas/device_params.hpp"

namespace clkr {
FormatChoice choose_format(const MatrixStats& stats, const DeviceInfo& device, bool persistent_cg) {
  if (stats.nnz == 0) return {Format::Csr, "an empty matrix"};
  const DeviceParams params = device_params(device);  // the defaults, or the device's tuned file
  // Rows of very unequal lengths: CSR runs its load-balanced kernels (row blocks of equal nonzeros, a
  // long row shared by a work-group), which every format's row-per-work-item kernel lacks (HYB's
  // overflow part too) and which read no padding.
  const double ratio = stats.mean_row_length > 0 ? stats.max_row_length / stats.mean_row_length : 1.0;
  const bool balanced = csr_balanced(params.spmv, stats.mean_row_length, stats.max_row_length);
  const std::string balanced_note =
      balanced ? ", load-balanced kernels (longest/mean row " + detail::format_number(ratio) +
                     " >= " + detail::format_number(params.spmv.csr_balanced_min_row_ratio) + ")"
               : "";
  // Past 2^31 - 1 entries only CSR's kernels index in 64 bits (the others' slots are 32-bit).
  if (stats.nnz > std::numeric_limits<std::int32_t>::max())
    return {Format::Csr, to_string(device.type) + ": CSR with 64-bit row offsets (" + std::to_string(stats.nnz) +
                             " entries, past the 32-bit index range of the other formats)" + balanced_note};
  // CG (none or Jacobi) on a matrix small enough for the persistent kernel (CSR or DIA): its iteration costs grid
  // barriers instead of launches, 5-7x faster than any format on the fused path for 10^4 rows
  // (docs/performance.md).
  const std::size_t persistent_rows = params.cg.persistent_max_rows;
  const bool persistent_entries =
      !balanced || static_cast<std::size_t>(stats.nnz) <= params.cg.persistent_max_balanced_nnz;
  const bool persistent =
      persistent_cg && static_cast<std::size_t>(stats.rows) <= persistent_rows && persistent_entries;
  const std::string persistent_note = persistent ? ", " + std::to_string(stats.rows) +
                                                       " rows <= " + std::to_string(persistent_rows) +
                                                       " (CG runs as a persistent kernel)"
                                                 : "";
  // Entries on a few diagonals: DIA reads no column index, 8 bytes a stored double against CSR's 12 a
  // nonzero, so it moves fewer bytes while its diagonals store little padding (a diagonal is stored
  // whole): up to spmv.dia_auto_max_fill times nnz, as the device's measurements (or, unmeasured, the
  // bytes) say. Such rows are never irregular enough for the load-balanced kernels.
  const double dia_fill =
      stats.diagonals >= 0 && stats.nnz > 0
          ? static_cast<double>(stats.diagonals) * static_cast<double>(stats.rows) / static_cast<double>(stats.nnz)
          : std::numeric_limits<double>::infinity();
  const MatrixOptions defaults;  // the limits DIA is built within
  const bool dia_fits =
      stats.diagonals >= 0 && stats.diagonals <= defaults.max_dia_diagonals && dia_fill <= defaults.max_ell_fill_ratio;
  const std::string dia_text =
      std::to_string(stats.diagonals) + " diagonals storing " + detail::format_number(dia_fill) + " x nnz";
  const double max_fill = params.spmv.dia_auto_max_fill;
  const bool dia_persistent = !persistent || params.cg.persistent_dia != 0;
  if (dia_fits && dia_fill <= max_fill && dia_persistent) {
    return {Format::Dia, to_string(device.type) + ": DIA, " + dia_text + " <= " + detail::format_number(max_fill) +
                             " (no column index read)" + persistent_note};
  }
  // Where DIA could be built but is not taken, the reason says why.
  const std::string dia_note =
      !dia_fits         ? std::string()
      : !dia_persistent ? " (not DIA: the persistent kernel runs CSR faster here, cg.persistent_dia)"
      : max_fill == 0   ? " (not DIA: spmv.dia_auto_max_fill is 0 on this device)"
                        : " (not DIA: " + dia_text + " > " + detail::format_number(max_fill) + ")";
  if (persistent) return {Format::Csr, to_string(device.type) + ": CSR" + persistent_note + balanced_note + dia_note};
  if (balanced) return {Format::Csr, to_string(device.type) + ": CSR" + balanced_note + dia_note};
  if (device.type != DeviceType::Gpu) {
    // CPUs: a work-item walks whole rows in order, with hardware prefetching, so ELL's padding and
    // HYB's second pass only add bytes: CSR, as long as the library runs CSR with one row per
    // work-item, i.e. below spmv.csr_vector_min_mean_row_length (infinite in the CPU defaults; a tuned
    // parameter file may set one). Above it CSR runs its GPU-style vector kernel (a group of lanes per
    // row), which PoCL ran 5-13x slower than CSR4 on the SuiteSparse SPD set; CSR4's scalar kernel reads
    // 4 entries at a time and never switches.
    const double vector_threshold = params.spmv.csr_vector_min_mean_row_length;
    const std::string type = to_string(device.type);
    if (std::isinf(vector_threshold)) return {Format::Csr, type + ": CSR (one row per work-item)" + dia_note};
    if (stats.mean_row_length < vector_threshold) {
      return {Format::Csr, type + ": CSR, mean row length " + detail::format_number(stats.mean_row_length) + " < " +
                               detail::format_number(vector_threshold) + " (one row per work-item)" + dia_note};
    }
    return {Format::Csr4, type + ": CSR4, mean row length " + detail::format_number(stats.mean_row_length) +
                              " >= " + detail::format_number(vector_threshold) + " (CSR would use its vector kernel)" +
                              dia_note};
  }
  // GPUs: one work-item per row wants the column-major ELL layout for coalesced reads; it is worth
  // it when rows are about equally long, i.e. ELL's padding (longest row / mean row) stays under
  // 1.5x the nonzeros. Irregular rows stay in CSR: on the H200 (2026-11-25, docs/performance-formats.md) the
  // SpMV of powerlaw:300000 took 219 us in CSR's row kernels, 384 us in HYB and 803 us in SELL-C-sigma,
  // and CG per iteration on the irregular SuiteSparse SPD matrices ran 5-7x slower in SELL (fused) than
  // in CSR (persistent); SELL and HYB remain for `--format sell|hyb`.
  constexpr double max_ell_fill = 1.5;
  if (ratio <= max_ell_fill) {
    return {Format::Ell, "GPU: ELL, regular rows (longest/mean row " + detail::format_number(ratio) +
                             " <= " + detail::format_number(max_ell_fill) + ")" + dia_note};
  }
  return {Format::Csr, "GPU: CSR, irregular rows (longest/mean row " + detail::format_number(ratio) + " > " +
                           detail::format_number(max_ell_fill) + "; SELL and HYB measured slower)" + dia_note};
}

Format format_named(const std::string& name, const MatrixStats& stats, const DeviceInfo& device) {
  return detail::to_lower(name) == "auto" ? choose_format(stats, device).format : parse_format(name);
}

}  // namespace clkr
