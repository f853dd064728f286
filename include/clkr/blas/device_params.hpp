// Launch parameters per device, kept as data (CLBlast-style): defaults by device type and vendor,
// overridable, and filled by `clkr tune`. Kernels receive them as -D options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "clkr/data/matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/device_info.hpp"

namespace clkr {

// How BLAS1 kernels split a vector across work-items.
enum class Blas1Variant {
  GridStride,  // GPUs: work-item i handles i, i + G, i + 2G, ... (coalesced)
  Chunked      // CPUs: each work-item owns one contiguous chunk, read with vector loads
};

// How the load-balanced CSR kernels (kernels/spmv/csr_balanced.cl) share out their row blocks.
enum class RowBlocking {
  WorkGroup,  // GPUs: one work-group per block of about work-group x entries_per_item nonzeros
  WorkItem    // CPUs: one work-item per block, a few blocks of equal entries + rows per core
};

struct Blas1Params {
  Blas1Variant variant = Blas1Variant::GridStride;
  std::size_t work_group_size = 256;
  std::size_t groups_per_compute_unit = 8;      // grid = compute units x this (GridStride)
  std::size_t work_items_per_compute_unit = 1;  // Chunked: about one work-item per core
  std::size_t vector_width = 4;                 // Chunked: vloadN width
};

struct ReductionParams {
  std::size_t work_group_size = 256;
  std::size_t groups_per_compute_unit = 4;  // partial sums = compute units x this
};

struct SpmvParams {
  std::size_t work_group_size = 256;
  // CSR: rows with a mean length at or above this use the CSR-vector kernel (a group of
  // `vector_lanes` work-items per row), below it the scalar kernel (one work-item per row).
  double csr_vector_min_mean_row_length = 12.0;
  std::size_t vector_lanes = 32;
  // CPUs: rows per work-item for the chunked scalar kernel (0: rows / (compute units * 4)).
  std::size_t rows_per_work_item = 0;
  // Independent partial sums per row in the CSR row kernels (1 or 4), in quasi-double and double, and
  // in single: four keep a CPU's adder busy (1.3x on PoCL); on an H200 four made double CG 8% faster
  // on poisson3d:192 but single 5% slower (docs/performance.md).
  std::size_t row_sum_chains = 4;
  std::size_t row_sum_chains_single = 4;
  // CSR with very unequal rows: when the longest row has at least this many times the mean row length,
  // the SpMV, the fused CG and the persistent CG run the load-balanced kernels (kernels/spmv/
  // csr_balanced.cl: row blocks of about equal nonzeros, a long row shared by a whole work-group),
  // instead of the scalar/vector choice above (infinity, the default outside the table of
  // device_params.cpp: never).
  double csr_balanced_min_row_ratio = std::numeric_limits<double>::infinity();
  // GPUs: entries per work-item in a work-group's row block (a block holds up to this times the
  // work-group size), so each work-item multiplies about this many entries per block.
  std::size_t csr_balanced_entries_per_item = 4;
  RowBlocking csr_balanced_blocks = RowBlocking::WorkGroup;
  // SELL-C-sigma's layout (MatrixOptions::sell_slice_height, sell_sort_window): C rows per slice (a
  // GPU's warp: neighbouring work-items read neighbouring words), sorted within windows of sigma rows
  // (padding on powerlaw:30000 with C = 32: 124% for sigma 256, 31% for 1024, 7% for 4096).
  std::size_t sell_slice_height = 32;
  std::size_t sell_sort_window = 4096;
  // --format auto picks DIA for a matrix whose diagonals store at most this many times its nonzeros
  // (diagonals x rows / nnz; 0: never). DIA moves 8 bytes a stored double and no index, CSR 12 a
  // nonzero and its row offsets, so DIA moves fewer bytes up to a fill of about 1.5 in double and 2 in
  // single; 1.2 keeps a margin where no device has measured otherwise (GPUs: predicted from the bytes).
  double dia_auto_max_fill = 1.2;
  // DIA on CPUs: rows per tile of the SpMV and the fused CG (kernels/spmv/dia.cl, -DDIA_TILE): a
  // work-item walks its rows tile by tile, diagonal by diagonal, so each diagonal's part is a vector
  // loop; 0 (GPUs): a row at a time.
  std::size_t dia_tile_rows = 0;
  // The row kernels (CSR, ELL, SELL, DIA rows): entries whose loads are issued together before their
  // additions (kernels/spmv/spmv_common.cl, strided_row_sum). A GPU issues a warp's instructions in
  // order, so entry by entry (1) it waits on every load; on an H200 groups of 8 made the single-
  // precision DIA SpMV 11% faster. CPUs: 1 (their cores overlap the loads themselves, and the guarded
  // groups made PoCL's CSR SpMV up to 2.8x slower).
  std::size_t row_load_group = 8;
  // NVIDIA only (other devices ignore it): 1 reads the matrix's entries (column indices and values) in
  // the load-balanced CSR kernels (SpMV, fused and persistent CG) with PTX's cache-streaming loads
  // (ld.global.cs: lines allocated evict-first in the L1 and the L2), so that the entries, each read
  // once, do not push out the elements of x that the rows gather again and again (kernels/common.cl,
  // COL_LOAD and MVAL_LOAD). 0: plain loads. The other kernels never take them: short rows share cache
  // lines that evict-first loads drop (docs/performance-formats.md section 9).
  std::size_t stream_loads = 0;
  // CSR-vector on long rows: the lanes per row start at `vector_lanes` and double, up to 32 (a warp;
  // wider, the reduction would cross warps) and the work-group size, while the mean row length exceeds
  // this many entries a lane. Infinity (the default): always `vector_lanes`. A row of a restriction
  // operator R = P^T (poisson3d:256's finest level: ~117 entries) gathers its x in short runs; with
  // more lanes a row's entries are loaded in fewer rounds of row_load_group each.
  double vector_entries_per_lane = std::numeric_limits<double>::infinity();
};

// The row_sum_chains entry for precision p.
std::size_t row_sum_chains(const SpmvParams& params, Precision p);

// The CSR-vector kernel's lanes per row for rows of this mean length (vector_lanes, doubled while
// vector_entries_per_lane says so), at most `limit` (the kernel's work-group).
std::size_t csr_vector_lanes(const SpmvParams& params, double mean_row_length, std::size_t limit);

// Whether CSR runs the load-balanced kernels for a matrix with this mean and longest row length.
bool csr_balanced(const SpmvParams& params, double mean_row_length, std::int64_t longest_row);

// `options` with SELL's layout from the device's parameters: what a Matrix built for this device uses.
MatrixOptions with_sell_layout(MatrixOptions options, const SpmvParams& params);

// CG on a device: systems of at most `persistent_max_rows` rows in CSR run as one persistent kernel
// per `persistent_iterations_per_launch` iterations (kernels/solver/cg_persistent.cl), larger ones as
// three fused kernels per iteration (cg.cl). The persistent kernel needs all its work-groups resident
// at once: `persistent_groups_per_compute_unit` is an upper bound, probed once per context and shape
// and halved until the groups all run (src/solver/cg_persistent.cpp); a device that does not even run
// one per compute unit at once times out every launch and falls back, so 0 rows (never) is the default
// wherever it has not been measured.
struct CgParams {
  std::size_t persistent_max_rows = 0;
  std::size_t persistent_work_group_size = 256;
  std::size_t persistent_groups_per_compute_unit = 1;
  std::size_t persistent_iterations_per_launch = 64;
  // Work-items per row in the persistent kernel's SpMV (a power of two); 0 picks it from the mean
  // row length (about four entries per work-item, at most 32).
  std::size_t persistent_lanes = 0;
  // How many times a work-group polls at a grid barrier before it declares the launch aborted (its
  // peers are not running): long enough to ride out a descheduled thread, short enough to fall back
  // within seconds. A poll is one read of device memory (about 0.5 us on a GPU, a few ns on a CPU, so
  // CPUs get a larger limit in the default table). A group gives up only when no group arrived between
  // its last two polls. 0 aborts every launch at its first barrier (the fallback path at once: tests).
  std::size_t persistent_spin_limit = std::size_t{1} << 22;
  // CG::Auto runs the persistent kernel on a matrix with the load-balanced CSR kernels only up to this
  // many nonzeros (within persistent_max_rows): with few resident work-groups each walks a long block,
  // and past this the fused path's launches cost less than that walk.
  std::size_t persistent_max_balanced_nnz = std::numeric_limits<std::size_t>::max();
  // Whether --format auto may pick DIA where CG runs the persistent kernel (1) or keeps CSR there (0):
  // the kernel is bound by its grid barriers, not its bytes, at the sizes it runs.
  std::size_t persistent_dia = 1;
  // CPU devices: CG::Auto (and PCG with Jacobi) runs systems of at most this many nonzeros on the host
  // (src/solver/cg_host.cpp), where a kernel launch and a scalar read cost more than the arithmetic of
  // a whole iteration; 0 (GPUs, the default): never. Quasi-double has its own limit: its double-single
  // arithmetic is compute-bound, and the device's vectorized kernels win it back on smaller systems.
  std::size_t host_max_nnz = 0;
  std::size_t host_max_nnz_quasi_double = 0;
};

// The numeric phase of the AMG's sparse products on the device, in the setup and in every update
// (kernels/precond/galerkin.cl): work-items per group, and the most work-items that share one row of
// the product (a power of two; the launch takes the power of two at or above the mean length of the
// rows they split, up to this). CPUs: 1, one work-item per row (a work-group runs on one thread there;
// barriers only cost).
struct GalerkinParams {
  std::size_t work_group_size = 128;
  std::size_t max_lanes = 32;
};

// The AMG setup on the device (src/precond/amg/device_*.cpp, kernels/precond/): one-work-item-per-row
// kernels run in work-groups of `work_group_size`; the kernels that give a work-group to each long row
// (sparse-product patterns, sorting a row) run `groups_per_compute_unit` work-groups per compute unit
// striding over the rows. A row with at most `short_row` entries (or products) is sorted and merged by
// one work-item in private memory; longer ones by a work-group, with a hash table of `hash_capacity`
// slots and a bitonic sort of up to `sort_capacity` keys in local memory (both powers of two, 4 bytes
// a slot; rows past them use global memory). Clamped to the device's local memory at launch.
struct AmgSetupParams {
  std::size_t work_group_size = 128;
  std::size_t groups_per_compute_unit = 16;
  std::size_t short_row = 32;
  std::size_t hash_capacity = 4096;
  std::size_t sort_capacity = 2048;
};

// The AMG cycle's coarse levels in one launch (kernels/precond/coarse_cycle.cl, src/precond/amg/
// coarse_cycle.cpp): from the first level below the finest with at most `coarse_max_rows` rows down to
// the coarsest, every smoothing step, residual, restriction, prolongation and the coarsest solve run in
// one kernel whose work-groups meet at grid barriers, where the cycle otherwise launches each of them
// (a level smoothed by Chebyshev(3), one sweep each way: 10 launches). Its work-groups must all run at
// once, as the persistent CG's: `groups_per_compute_unit` is an upper bound, probed once per context and
// halved until they do (cg.persistent_spin_limit bounds every wait). `lanes`: work-items per row of its
// SpMVs (a power of two up to the work-group; 0: from the levels' mean row length). `fine_max_rows`:
// the finest level joins the launch too (the whole cycle one launch, as a small matrix's level-0
// kernels are launch-bound as well) when it has at most this many rows; it then reads a CSR copy of
// the matrix where that is in another format. 0 rows (never) is the default of both wherever it has
// not been measured.
struct AmgCycleParams {
  std::size_t coarse_max_rows = 0;
  std::size_t work_group_size = 256;
  std::size_t groups_per_compute_unit = 1;
  std::size_t lanes = 0;
  std::size_t fine_max_rows = 0;
};

struct DeviceParams {
  std::string source;  // where these came from: "default:gpu", "default:cpu", "tuned:<file>", ...
  Blas1Params blas1;
  ReductionParams reduction;
  SpmvParams spmv;
  CgParams cg;
  GalerkinParams galerkin;
  AmgSetupParams amg_setup;
  AmgCycleParams amg_cycle;
};

// Defaults for a device by type and vendor, overridden by a tuned entry found under the cache
// directory (written by `clkr tune`) when one exists for this device and driver: the file
// device_params_path(info, cache_dir). `cache_dir` empty means the program cache's default
// ($CLKR_CACHE_DIR, else $XDG_CACHE_HOME/clkr, else ~/.cache/clkr); "off" skips the lookup.
// Throws clkr::ParseError when the tuned file exists but is malformed.
DeviceParams device_params(const DeviceInfo& info, const std::string& cache_dir = "");
DeviceParams default_device_params(const DeviceInfo& info);

// <cache_dir>/params/<device name>_<driver version>.txt (unsafe characters replaced by '_'), or ""
// when the cache is off.
std::string device_params_path(const DeviceInfo& info, const std::string& cache_dir = "");

// The tuned-parameter file format: one `key = value` per line ("blas1.variant = chunked",
// "reduction.work_group_size = 256", ...), '#' comments, keys as format_device_params writes them.
// read_device_params applies the file's keys over `base` (keys it lacks keep base's values) and
// throws clkr::ParseError naming the file and line for an unknown key or a bad value.
DeviceParams read_device_params(const std::string& path, DeviceParams base);
std::string format_device_params(const DeviceParams& params);

// Throws clkr::Error naming the first parameter out of range (zero sizes, a vector width other than
// 2, 4, 8 or 16, ...).
void validate_device_params(const DeviceParams& params);

std::string to_string(Blas1Variant v);                      // "grid_stride", "chunked"
Blas1Variant parse_blas1_variant(const std::string& text);  // throws clkr::Error
std::string to_string(RowBlocking b);                       // "work_group", "work_item"
RowBlocking parse_row_blocking(const std::string& text);    // throws clkr::Error

}  // namespace clkr
