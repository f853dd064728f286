// Launch parameters as data: the key=value file that `clkr tune` writes under the cache directory to
// override the default table (device_params_defaults.cpp) for one device and driver, its checks, and
// the parameters' names as text.
#include "clkr/blas/device_params.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "../runtime/text.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::string default_cache_dir() {
  // The same lookup as the program cache, so tuned parameters sit next to the kernel binaries.
  if (const char* dir = std::getenv("CLKR_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/clkr";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/clkr";
  return "off";
}

std::string safe_file_name(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return out;
}

std::size_t parse_size(const std::string& value) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || value[0] == '-') throw Error("expected a non-negative integer");
  return static_cast<std::size_t>(v);
}

double parse_real(const std::string& value) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size()) throw Error("expected a number");
  return v;
}

// Every key of the file format with how to read and write it.
struct Field {
  const char* key;
  std::function<void(DeviceParams&, const std::string&)> set;
  std::function<std::string(const DeviceParams&)> get;
};

template <class T>
std::string text(const T& v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      {"blas1.variant", [](DeviceParams& p, const std::string& v) { p.blas1.variant = parse_blas1_variant(v); },
       [](const DeviceParams& p) { return to_string(p.blas1.variant); }},
      {"blas1.work_group_size", [](DeviceParams& p, const std::string& v) { p.blas1.work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.blas1.work_group_size); }},
      {"blas1.groups_per_compute_unit",
       [](DeviceParams& p, const std::string& v) { p.blas1.groups_per_compute_unit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.blas1.groups_per_compute_unit); }},
      {"blas1.work_items_per_compute_unit",
       [](DeviceParams& p, const std::string& v) { p.blas1.work_items_per_compute_unit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.blas1.work_items_per_compute_unit); }},
      {"blas1.vector_width", [](DeviceParams& p, const std::string& v) { p.blas1.vector_width = parse_size(v); },
       [](const DeviceParams& p) { return text(p.blas1.vector_width); }},
      {"reduction.work_group_size",
       [](DeviceParams& p, const std::string& v) { p.reduction.work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.reduction.work_group_size); }},
      {"reduction.groups_per_compute_unit",
       [](DeviceParams& p, const std::string& v) { p.reduction.groups_per_compute_unit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.reduction.groups_per_compute_unit); }},
      {"spmv.work_group_size", [](DeviceParams& p, const std::string& v) { p.spmv.work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.work_group_size); }},
      {"spmv.csr_vector_min_mean_row_length",
       [](DeviceParams& p, const std::string& v) { p.spmv.csr_vector_min_mean_row_length = parse_real(v); },
       [](const DeviceParams& p) { return text(p.spmv.csr_vector_min_mean_row_length); }},
      {"spmv.vector_lanes", [](DeviceParams& p, const std::string& v) { p.spmv.vector_lanes = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.vector_lanes); }},
      {"spmv.vector_entries_per_lane",
       [](DeviceParams& p, const std::string& v) { p.spmv.vector_entries_per_lane = parse_real(v); },
       [](const DeviceParams& p) { return text(p.spmv.vector_entries_per_lane); }},
      {"cg.persistent_max_rows",
       [](DeviceParams& p, const std::string& v) { p.cg.persistent_max_rows = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_max_rows); }},
      {"cg.persistent_work_group_size",
       [](DeviceParams& p, const std::string& v) { p.cg.persistent_work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_work_group_size); }},
      {"cg.persistent_groups_per_compute_unit",
       [](DeviceParams& p, const std::string& v) { p.cg.persistent_groups_per_compute_unit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_groups_per_compute_unit); }},
      {"cg.persistent_iterations_per_launch",
       [](DeviceParams& p, const std::string& v) { p.cg.persistent_iterations_per_launch = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_iterations_per_launch); }},
      {"cg.persistent_lanes", [](DeviceParams& p, const std::string& v) { p.cg.persistent_lanes = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_lanes); }},
      {"cg.persistent_spin_limit",
       [](DeviceParams& p, const std::string& v) { p.cg.persistent_spin_limit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_spin_limit); }},
      {"cg.persistent_max_balanced_nnz",
       [](DeviceParams& p, const std::string& v) { p.cg.persistent_max_balanced_nnz = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_max_balanced_nnz); }},
      {"cg.persistent_dia", [](DeviceParams& p, const std::string& v) { p.cg.persistent_dia = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.persistent_dia); }},
      {"cg.host_max_nnz", [](DeviceParams& p, const std::string& v) { p.cg.host_max_nnz = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.host_max_nnz); }},
      {"cg.host_max_nnz_quasi_double",
       [](DeviceParams& p, const std::string& v) { p.cg.host_max_nnz_quasi_double = parse_size(v); },
       [](const DeviceParams& p) { return text(p.cg.host_max_nnz_quasi_double); }},
      {"spmv.row_sum_chains", [](DeviceParams& p, const std::string& v) { p.spmv.row_sum_chains = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.row_sum_chains); }},
      {"spmv.row_sum_chains_single",
       [](DeviceParams& p, const std::string& v) { p.spmv.row_sum_chains_single = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.row_sum_chains_single); }},
      {"spmv.rows_per_work_item",
       [](DeviceParams& p, const std::string& v) { p.spmv.rows_per_work_item = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.rows_per_work_item); }},
      {"spmv.csr_balanced_min_row_ratio",
       [](DeviceParams& p, const std::string& v) { p.spmv.csr_balanced_min_row_ratio = parse_real(v); },
       [](const DeviceParams& p) { return text(p.spmv.csr_balanced_min_row_ratio); }},
      {"spmv.csr_balanced_entries_per_item",
       [](DeviceParams& p, const std::string& v) { p.spmv.csr_balanced_entries_per_item = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.csr_balanced_entries_per_item); }},
      {"spmv.csr_balanced_blocks",
       [](DeviceParams& p, const std::string& v) { p.spmv.csr_balanced_blocks = parse_row_blocking(v); },
       [](const DeviceParams& p) { return to_string(p.spmv.csr_balanced_blocks); }},
      {"spmv.sell_slice_height",
       [](DeviceParams& p, const std::string& v) { p.spmv.sell_slice_height = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.sell_slice_height); }},
      {"spmv.sell_sort_window", [](DeviceParams& p, const std::string& v) { p.spmv.sell_sort_window = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.sell_sort_window); }},
      {"spmv.dia_auto_max_fill",
       [](DeviceParams& p, const std::string& v) { p.spmv.dia_auto_max_fill = parse_real(v); },
       [](const DeviceParams& p) { return text(p.spmv.dia_auto_max_fill); }},
      {"spmv.dia_tile_rows", [](DeviceParams& p, const std::string& v) { p.spmv.dia_tile_rows = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.dia_tile_rows); }},
      {"spmv.row_load_group", [](DeviceParams& p, const std::string& v) { p.spmv.row_load_group = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.row_load_group); }},
      {"spmv.stream_loads", [](DeviceParams& p, const std::string& v) { p.spmv.stream_loads = parse_size(v); },
       [](const DeviceParams& p) { return text(p.spmv.stream_loads); }},
      {"amg_setup.work_group_size",
       [](DeviceParams& p, const std::string& v) { p.amg_setup.work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_setup.work_group_size); }},
      {"amg_setup.groups_per_compute_unit",
       [](DeviceParams& p, const std::string& v) { p.amg_setup.groups_per_compute_unit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_setup.groups_per_compute_unit); }},
      {"amg_setup.short_row", [](DeviceParams& p, const std::string& v) { p.amg_setup.short_row = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_setup.short_row); }},
      {"amg_setup.hash_capacity",
       [](DeviceParams& p, const std::string& v) { p.amg_setup.hash_capacity = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_setup.hash_capacity); }},
      {"amg_setup.sort_capacity",
       [](DeviceParams& p, const std::string& v) { p.amg_setup.sort_capacity = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_setup.sort_capacity); }},
      {"galerkin.work_group_size",
       [](DeviceParams& p, const std::string& v) { p.galerkin.work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.galerkin.work_group_size); }},
      {"galerkin.max_lanes", [](DeviceParams& p, const std::string& v) { p.galerkin.max_lanes = parse_size(v); },
       [](const DeviceParams& p) { return text(p.galerkin.max_lanes); }},
      {"amg_cycle.coarse_max_rows",
       [](DeviceParams& p, const std::string& v) { p.amg_cycle.coarse_max_rows = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_cycle.coarse_max_rows); }},
      {"amg_cycle.fine_max_rows",
       [](DeviceParams& p, const std::string& v) { p.amg_cycle.fine_max_rows = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_cycle.fine_max_rows); }},
      {"amg_cycle.work_group_size",
       [](DeviceParams& p, const std::string& v) { p.amg_cycle.work_group_size = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_cycle.work_group_size); }},
      {"amg_cycle.groups_per_compute_unit",
       [](DeviceParams& p, const std::string& v) { p.amg_cycle.groups_per_compute_unit = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_cycle.groups_per_compute_unit); }},
      {"amg_cycle.lanes", [](DeviceParams& p, const std::string& v) { p.amg_cycle.lanes = parse_size(v); },
       [](const DeviceParams& p) { return text(p.amg_cycle.lanes); }},
  };
  return table;
}

}  // namespace

std::size_t row_sum_chains(const SpmvParams& params, Precision p) {
  return p == Precision::Single ? params.row_sum_chains_single : params.row_sum_chains;
}

std::size_t csr_vector_lanes(const SpmvParams& params, double mean_row_length, std::size_t limit) {
  std::size_t lanes = params.vector_lanes;
  const std::size_t widest = std::min<std::size_t>(32, limit);
  while (lanes * 2 <= widest && mean_row_length > params.vector_entries_per_lane * static_cast<double>(lanes))
    lanes *= 2;
  return lanes;
}

bool csr_balanced(const SpmvParams& params, double mean_row_length, std::int64_t longest_row) {
  return mean_row_length > 0 && static_cast<double>(longest_row) >= params.csr_balanced_min_row_ratio * mean_row_length;
}

std::string to_string(Blas1Variant v) {
  switch (v) {
    case Blas1Variant::GridStride:
      return "grid_stride";
    case Blas1Variant::Chunked:
      return "chunked";
  }
  throw Error("invalid Blas1Variant value " + std::to_string(static_cast<int>(v)));
}

Blas1Variant parse_blas1_variant(const std::string& text) {
  const std::string t = detail::to_lower(text);
  if (t == "grid_stride" || t == "gridstride" || t == "grid-stride") return Blas1Variant::GridStride;
  if (t == "chunked") return Blas1Variant::Chunked;
  throw Error("unknown BLAS1 variant '" + text + "' (expected grid_stride or chunked)");
}

MatrixOptions with_sell_layout(MatrixOptions options, const SpmvParams& params) {
  options.sell_slice_height = static_cast<std::int32_t>(params.sell_slice_height);
  options.sell_sort_window = static_cast<std::int32_t>(params.sell_sort_window);
  return options;
}

std::string to_string(RowBlocking b) {
  switch (b) {
    case RowBlocking::WorkGroup:
      return "work_group";
    case RowBlocking::WorkItem:
      return "work_item";
  }
  throw Error("invalid RowBlocking value " + std::to_string(static_cast<int>(b)));
}

RowBlocking parse_row_blocking(const std::string& text) {
  const std::string t = detail::to_lower(text);
  if (t == "work_group") return RowBlocking::WorkGroup;
  if (t == "work_item") return RowBlocking::WorkItem;
  throw Error("unknown row blocking '" + text + "' (expected work_group or work_item)");
}

std::string device_params_path(const DeviceInfo& info, const std::string& cache_dir) {
  const std::string dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  if (dir == "off") return {};
  return dir + "/params/" + safe_file_name(info.name + "_" + info.driver_version) + ".txt";
}

DeviceParams device_params(const DeviceInfo& info, const std::string& cache_dir) {
  DeviceParams params = default_device_params(info);
  const std::string path = device_params_path(info, cache_dir);
  if (path.empty() || !std::ifstream(path)) return params;
  return read_device_params(path, std::move(params));
}

DeviceParams read_device_params(const std::string& path, DeviceParams base) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open device parameter file '" + path + "'");
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw ParseError(path, number, "expected 'key = value', got '" + line + "'");
    const std::string key = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    const auto& table = fields();
    const auto field = std::find_if(table.begin(), table.end(), [&](const Field& f) { return key == f.key; });
    if (field == table.end()) {
      std::string known;
      for (const auto& f : table) known += std::string(known.empty() ? "" : ", ") + f.key;
      throw ParseError(path, number, "unknown key '" + key + "' (known keys: " + known + ")");
    }
    try {
      field->set(base, value);
    } catch (const Error& e) {
      throw ParseError(path, number, std::string(field->key) + " = '" + value + "': " + e.what());
    }
  }
  try {
    validate_device_params(base);
  } catch (const Error& e) {
    throw ParseError(path, number, e.what());
  }
  base.source = "tuned:" + path;
  return base;
}

std::string format_device_params(const DeviceParams& params) {
  std::string out;
  for (const auto& f : fields()) out += std::string(f.key) + " = " + f.get(params) + "\n";
  return out;
}

void validate_device_params(const DeviceParams& params) {
  auto positive = [](std::size_t v, const char* name) {
    if (v == 0) throw Error(std::string("device parameter ") + name + " must be at least 1");
  };
  positive(params.blas1.work_group_size, "blas1.work_group_size");
  positive(params.blas1.groups_per_compute_unit, "blas1.groups_per_compute_unit");
  positive(params.blas1.work_items_per_compute_unit, "blas1.work_items_per_compute_unit");
  const std::size_t w = params.blas1.vector_width;
  if (w != 2 && w != 4 && w != 8 && w != 16)
    throw Error("device parameter blas1.vector_width must be 2, 4, 8 or 16, not " + std::to_string(w));
  positive(params.reduction.work_group_size, "reduction.work_group_size");
  positive(params.reduction.groups_per_compute_unit, "reduction.groups_per_compute_unit");
  positive(params.spmv.work_group_size, "spmv.work_group_size");
  if (params.spmv.dia_tile_rows > 4096)
    throw Error("device parameter spmv.dia_tile_rows must be at most 4096 (a private array of that many sums), not " +
                std::to_string(params.spmv.dia_tile_rows));
  if (!(params.spmv.dia_auto_max_fill >= 0))
    throw Error("device parameter spmv.dia_auto_max_fill must be a number >= 0 (0: never DIA), not " +
                text(params.spmv.dia_auto_max_fill));
  positive(params.spmv.vector_lanes, "spmv.vector_lanes");
  if (!(params.spmv.vector_entries_per_lane > 0))
    throw Error("device parameter spmv.vector_entries_per_lane must be a number > 0 (inf: never more lanes), not " +
                text(params.spmv.vector_entries_per_lane));
  if (params.spmv.row_load_group < 1 || params.spmv.row_load_group > 32)
    throw Error("device parameter spmv.row_load_group must lie in [1, 32] (private arrays of that many), not " +
                std::to_string(params.spmv.row_load_group));
  if (params.spmv.stream_loads > 1)
    throw Error("device parameter spmv.stream_loads must be 0 or 1, not " + std::to_string(params.spmv.stream_loads));
  for (const auto& [chains, name] : {std::pair{params.spmv.row_sum_chains, "spmv.row_sum_chains"},
                                     std::pair{params.spmv.row_sum_chains_single, "spmv.row_sum_chains_single"}}) {
    if (chains != 1 && chains != 4)
      throw Error(std::string("device parameter ") + name + " must be 1 or 4, not " + std::to_string(chains));
  }
  auto power_of_two = [](std::size_t v) { return v != 0 && (v & (v - 1)) == 0; };
  if (!power_of_two(params.cg.persistent_work_group_size))
    throw Error("device parameter cg.persistent_work_group_size must be a power of two, not " +
                std::to_string(params.cg.persistent_work_group_size));
  positive(params.cg.persistent_groups_per_compute_unit, "cg.persistent_groups_per_compute_unit");
  positive(params.cg.persistent_iterations_per_launch, "cg.persistent_iterations_per_launch");
  if (params.cg.persistent_spin_limit > 0x7fffffff)
    throw Error("device parameter cg.persistent_spin_limit must be below 2^31");
  const std::size_t lanes = params.cg.persistent_lanes;
  if (lanes != 0 && (!power_of_two(lanes) || lanes > params.cg.persistent_work_group_size))
    throw Error("device parameter cg.persistent_lanes must be 0 or a power of two up to the work-group size, not " +
                std::to_string(lanes));
  positive(params.amg_setup.work_group_size, "amg_setup.work_group_size");
  positive(params.amg_setup.groups_per_compute_unit, "amg_setup.groups_per_compute_unit");
  if (params.amg_setup.short_row < 1 || params.amg_setup.short_row > 256)
    throw Error("device parameter amg_setup.short_row must lie in [1, 256] (a private array of that many), not " +
                std::to_string(params.amg_setup.short_row));
  for (const auto& [capacity, name] : {std::pair{params.amg_setup.hash_capacity, "amg_setup.hash_capacity"},
                                       std::pair{params.amg_setup.sort_capacity, "amg_setup.sort_capacity"}}) {
    if (!power_of_two(capacity) || capacity < 64)
      throw Error(std::string("device parameter ") + name + " must be a power of two of at least 64, not " +
                  std::to_string(capacity));
  }
  if (!power_of_two(params.amg_cycle.work_group_size))
    throw Error("device parameter amg_cycle.work_group_size must be a power of two, not " +
                std::to_string(params.amg_cycle.work_group_size));
  positive(params.amg_cycle.groups_per_compute_unit, "amg_cycle.groups_per_compute_unit");
  if (params.amg_cycle.lanes != 0 &&
      (!power_of_two(params.amg_cycle.lanes) || params.amg_cycle.lanes > params.amg_cycle.work_group_size))
    throw Error("device parameter amg_cycle.lanes must be 0 or a power of two up to the work-group size, not " +
                std::to_string(params.amg_cycle.lanes));
  if (!power_of_two(params.galerkin.work_group_size))
    throw Error("device parameter galerkin.work_group_size must be a power of two, not " +
                std::to_string(params.galerkin.work_group_size));
  if (!power_of_two(params.galerkin.max_lanes) || params.galerkin.max_lanes > params.galerkin.work_group_size)
    throw Error("device parameter galerkin.max_lanes must be a power of two up to galerkin.work_group_size, not " +
                std::to_string(params.galerkin.max_lanes));
  if (!(params.spmv.csr_vector_min_mean_row_length >= 0))
    throw Error("device parameter spmv.csr_vector_min_mean_row_length must be >= 0");
  if (!(params.spmv.csr_balanced_min_row_ratio >= 0))
    throw Error("device parameter spmv.csr_balanced_min_row_ratio must be >= 0");
  positive(params.spmv.csr_balanced_entries_per_item, "spmv.csr_balanced_entries_per_item");
  positive(params.spmv.sell_slice_height, "spmv.sell_slice_height");
  positive(params.spmv.sell_sort_window, "spmv.sell_sort_window");
  for (const auto& [value, name] : {std::pair{params.spmv.sell_slice_height, "spmv.sell_slice_height"},
                                    std::pair{params.spmv.sell_sort_window, "spmv.sell_sort_window"}}) {
    if (value > 1u << 20) throw Error(std::string("device parameter ") + name + " must be at most 2^20");
  }
}

}  // namespace clkr
