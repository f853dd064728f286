// `clkr info MATRIX`: the statistics that decide how a matrix should be stored and solved (size, row
// lengths, bandwidth, diagonals, symmetry, diagonal) and the device bytes of each storage format. Needs
// no device.
// A file declaring far more rows than entries is read as its nonempty rows only, so that its answer
// costs per entry, not per declared row (a 60-byte file may declare 2e9 rows).
#include <algorithm>
#include <iostream>

#include "app_common.hpp"
#include "cli_options.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "commands.hpp"
#include "json_writer.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> info_specs = {
    {"--json", nullptr, "print one JSON object instead of the table"},
};

// The matrix as read: all its rows, or (row_ids not empty) the nonempty ones, row k being row row_ids[k].
struct Loaded {
  HostCsrMatrix A;
  std::vector<std::int32_t> row_ids;
  MatrixStats stats;
};

// Files whose declared rows outnumber their entries 4 to 1 (and a million more) are read as their
// nonempty rows: below that, the per-row arrays cost about what the entries do anyway.
Loaded load(const std::string& spec) {
  const DeclaredSize size = declared_size(spec);
  Loaded m;
  if (!is_generator_spec(spec) && size.known && size.rows > 4 * size.max_nnz + (1 << 20)) {
    MatrixMarketRows file = read_matrix_market_rows(spec);
    m.A = std::move(file.listed);
    m.row_ids = std::move(file.row_ids);
    m.stats = compute_stats(m.A, m.row_ids, file.rows);
    m.stats.symmetric = file.symmetric;
    return m;
  }
  m.A = load_matrix(spec);
  m.stats = compute_stats(m.A);
  return m;
}

struct DiagonalSummary {
  std::int64_t positive = 0, nonpositive = 0, missing = 0;
};

DiagonalSummary diagonal_summary(const Loaded& m) {
  DiagonalSummary d;
  const HostCsrMatrix& A = m.A;
  const std::int64_t n = std::min(m.stats.rows, m.stats.cols);
  for (std::int32_t r = 0; r < A.rows; ++r) {
    const std::int32_t i = m.row_ids.empty() ? r : m.row_ids[r];
    if (i >= n) break;
    const auto first = A.col_indices.begin() + A.row_offsets[r];
    const auto last = A.col_indices.begin() + A.row_offsets[r + 1];
    const auto it = std::lower_bound(first, last, i);
    if (it != last && *it == i) ++(A.values[it - A.col_indices.begin()] > 0 ? d.positive : d.nonpositive);
  }
  d.missing = n - d.positive - d.nonpositive;
  return d;
}

// DIA's diagonals and what storing them whole costs, or that there are too many to count.
std::string diagonals_text(const MatrixStats& s) {
  if (s.diagonals < 0)
    return "more than " + std::to_string(MatrixStats::kDiagonalsCounted) +
           " (distinct column - row offsets; DIA refused)";
  const double fill = s.nnz > 0 ? static_cast<double>(s.diagonals) * static_cast<double>(s.rows) / s.nnz : 0;
  const MatrixOptions limits;
  std::string text =
      std::to_string(s.diagonals) + " (distinct column - row offsets; DIA stores " + number_text(fill) + " x nnz";
  if (s.diagonals > limits.max_dia_diagonals) {
    text += ", refused: more than " + std::to_string(limits.max_dia_diagonals) + " diagonals";
  } else if (fill > limits.max_ell_fill_ratio) {
    text += ", refused: more than " + number_text(limits.max_ell_fill_ratio) + " x nnz";
  }
  return text + ")";
}

std::string symmetry_text(bool declared, bool numeric) {
  if (declared) return "yes (declared by the source)";
  return numeric ? "yes (numerically; stored as general)" : "no";
}

}  // namespace

int info_command(const Args& args) {
  const ParsedArgs opts("info", info_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "info MATRIX [--json]",
                "Prints a matrix's statistics and the device memory of each storage format (double values).\n"
                "MATRIX: a Matrix Market file (.mtx, .mtx.gz) or poisson2d:N / poisson3d:N.",
                info_specs);
    return 0;
  }
  if (opts.positional().size() != 1) {
    throw UsageError(opts.positional().empty()
                         ? "missing MATRIX (a .mtx/.mtx.gz file, poisson2d:N or poisson3d:N)"
                         : "expected one MATRIX, got " + std::to_string(opts.positional().size()));
  }
  const std::string spec = opts.positional()[0];
  Stopwatch load_clock;
  const Loaded m = load(spec);
  const double load_seconds = load_clock.seconds();
  const MatrixStats& s = m.stats;
  const bool numeric_symmetry = s.symmetric || (s.rows == s.cols && numerically_symmetric(m.A, m.row_ids));
  const DiagonalSummary diagonal = diagonal_summary(m);
  DeviceInfo cpu, gpu, nvidia;
  cpu.type = DeviceType::Cpu;
  gpu.type = DeviceType::Gpu;
  nvidia.type = DeviceType::Gpu;
  nvidia.vendor = "NVIDIA Corporation";
  const FormatChoice on_cpu = choose_format(s, cpu), on_gpu = choose_format(s, gpu);
  // CG without a preconditioner or with Jacobi, which NVIDIA's defaults run on the persistent kernel
  // (CSR or DIA) up to cg.persistent_max_rows rows: what `clkr solve` takes there for its CG.
  const FormatChoice cg_on_nvidia = choose_format(s, nvidia, true);
  const double ell_fill = s.nnz > 0 ? static_cast<double>(s.max_row_length) * s.rows / s.nnz : 0;

  if (opts.has("--json")) {
    JsonWriter j(std::cout);
    j.begin_object()
        .member("matrix", spec)
        .member("rows", static_cast<std::int64_t>(s.rows))
        .member("cols", static_cast<std::int64_t>(s.cols))
        .member("nnz", static_cast<std::int64_t>(s.nnz))
        .member("min_row_length", static_cast<std::int64_t>(s.min_row_length))
        .member("max_row_length", static_cast<std::int64_t>(s.max_row_length))
        .member("mean_row_length", s.mean_row_length)
        .member("empty_rows", static_cast<std::int64_t>(s.empty_rows))
        .member("bandwidth", static_cast<std::int64_t>(s.bandwidth))
        .member("symmetric_declared", s.symmetric)
        .member("symmetric", numeric_symmetry)
        .member("diagonal_positive", diagonal.positive)
        .member("diagonal_nonpositive", diagonal.nonpositive)
        .member("diagonal_missing", diagonal.missing)
        .member("hyb_ell_width", static_cast<std::int64_t>(s.hyb_ell_width))
        .member("diagonals", static_cast<std::int64_t>(s.diagonals))
        .member("ell_fill_ratio", ell_fill)
        .member("auto_format_cpu", to_string(on_cpu.format))
        .member("auto_format_gpu", to_string(on_gpu.format))
        .member("auto_format_cpu_reason", on_cpu.reason)
        .member("auto_format_gpu_reason", on_gpu.reason)
        .member("auto_format_nvidia_cg", to_string(cg_on_nvidia.format))
        .member("auto_format_nvidia_cg_reason", cg_on_nvidia.reason)
        .member("load_seconds", load_seconds);
    j.key("bytes_per_format").begin_object();
    for (const auto& [format, bytes] : s.bytes_per_format)
      j.member(to_string(format), static_cast<std::int64_t>(bytes));
    j.end_object().end_object();
    std::cout << "\n";
    return 0;
  }

  std::cout << "matrix        " << spec << " (read in " << seconds_text(load_seconds) << ")\n"
            << "size          " << s.rows << " x " << s.cols << "\n"
            << "nnz           " << s.nnz << "\n"
            << "row length    min " << s.min_row_length << ", max " << s.max_row_length << ", mean "
            << number_text(s.mean_row_length, 4) << "\n"
            << "empty rows    " << s.empty_rows << "\n"
            << "bandwidth     " << s.bandwidth << " (max |i - j|)\n"
            << "symmetric     " << symmetry_text(s.symmetric, numeric_symmetry) << "\n"
            << "diagonal      " << diagonal.positive << " positive, " << diagonal.nonpositive << " <= 0, "
            << diagonal.missing << " missing"
            << (diagonal.positive == std::min(s.rows, s.cols) && numeric_symmetry
                    ? " (CG/PCG may apply: SPD is not checked)"
                    : "")
            << "\n"
            << "HYB width     " << s.hyb_ell_width << " (ELL part of HYB; longer rows spill into its CSR part)\n"
            << "ELL fill      " << number_text(ell_fill) << " x nnz (longest row x rows / nnz)\n"
            << "diagonals     " << diagonals_text(s) << "\n"
            << "auto format   " << on_cpu.reason << "; " << on_gpu.reason << "\n"
            << "              CG (none or Jacobi) on NVIDIA " << cg_on_nvidia.reason << "\n"
            << "device bytes per format (32-bit indices, double values):\n";
  for (const auto& [format, bytes] : s.bytes_per_format) {
    const std::string name = to_string(format);
    std::cout << "  " << name << std::string(6 - std::min<std::size_t>(name.size(), 5), ' ')
              << bytes_text(static_cast<double>(bytes)) << " (" << bytes << " bytes)\n";
  }
  return 0;
}

}  // namespace clkr::app
