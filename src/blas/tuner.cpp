// clkr::tune_device: every launch-parameter search as data (a parameter space, the device limits that
// rule configurations out, and the operations timed) and one loop that measures a search; the report
// and the parameter file that `clkr tune` writes are tune_report.cpp's.
#include "clkr/blas/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <random>
#include <utility>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

// A configuration whose first timed run takes longer than this many times the fastest first run is
// not repeated: repetitions only refine the configurations that can still win, and the searches stay
// bounded on devices where a whole variant is an order of magnitude off (grid-stride on CPUs). Wide
// enough that one run slowed by other work (small sizes on a busy machine: 2-3x) is not dropped.
constexpr double kPruneFactor = 4.0;

// A configuration replaces the default only when it is faster by more than this fraction.
constexpr double kKeepDefaultMargin = 0.03;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The CSR kernels are timed on a sweep of matrices with these row lengths, which are also the finite
// candidate values of spmv.csr_vector_min_mean_row_length: each sends a different subset of the sweep
// to the vector kernel.
const std::vector<std::size_t> kSweepRowLengths = {8, 12, 16, 32};

const std::vector<std::size_t> kWorkGroupSizes = {64, 128, 256, 512, 1024};

// The load-balanced CSR kernels are timed on power-law matrices (rows of 15 to these many entries:
// longest / mean row about 2.5, 4, 10 and 18), whose ratios are also the candidate thresholds
// spmv.csr_balanced_min_row_ratio.
const std::vector<int> kBalancedSweepMaxRows = {60, 120, 480, 1015};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", &tm);
  return text;
}

std::string bytes_text(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024.0)
    std::snprintf(text, sizeof text, "%.3g MiB", bytes / (1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%.3g KiB", bytes / 1024.0);
  return text;
}

// ---- searches as data ----------------------------------------------------------------------------

struct Candidate {
  std::string label;
  DeviceParams params;
};

// One search: its candidates (those within the device's limits, the default first), the ones ruled
// out and why, and one timed run of a configuration on a Blas built with its parameters.
struct SearchSpec {
  std::string name;
  std::string metric;
  std::vector<Candidate> candidates;
  std::vector<std::string> skipped;
  std::function<std::vector<TuneOpTime>(Blas&)> run;
  bool prune = true;  // false: every configuration gets every repetition
};

// Adds a candidate unless `limit` (empty: within the device's limits) says why it cannot run, or an
// identical configuration is already in the space.
void add_candidate(SearchSpec& spec, std::string label, const DeviceParams& params, const std::string& limit) {
  if (!limit.empty()) {
    spec.skipped.push_back(label + ": " + limit);
    return;
  }
  for (const Candidate& c : spec.candidates)
    if (c.label == label) return;
  spec.candidates.push_back({std::move(label), params});
}

std::string blas1_label(const Blas1Params& b) {
  if (b.variant == Blas1Variant::GridStride)
    return "grid_stride wg=" + std::to_string(b.work_group_size) +
           " groups/cu=" + std::to_string(b.groups_per_compute_unit);
  return "chunked wg=" + std::to_string(b.work_group_size) +
         " items/cu=" + std::to_string(b.work_items_per_compute_unit) + " vw=" + std::to_string(b.vector_width);
}

std::string reduction_label(const ReductionParams& r) {
  return "wg=" + std::to_string(r.work_group_size) + " groups/cu=" + std::to_string(r.groups_per_compute_unit);
}

std::string rows_label(const SpmvParams& s, bool cpu) {
  if (!cpu) return "wg=" + std::to_string(s.work_group_size);
  return "rows/item=" + (s.rows_per_work_item == 0 ? std::string("auto") : std::to_string(s.rows_per_work_item));
}

std::string balanced_label(const SpmvParams& s) {
  if (s.csr_balanced_blocks == RowBlocking::WorkItem) return "balanced work_item";
  return "balanced work_group entries/item=" + std::to_string(s.csr_balanced_entries_per_item);
}

std::string balanced_threshold_label(const SpmvParams& s) {
  if (std::isinf(s.csr_balanced_min_row_ratio)) return "row kernels only (balanced from inf)";
  char from[32];
  std::snprintf(from, sizeof from, "%.3g", s.csr_balanced_min_row_ratio);
  return balanced_label(s) + " from " + from;
}

std::string threshold_label(const SpmvParams& s) {
  if (std::isinf(s.csr_vector_min_mean_row_length)) return "scalar only (vector from inf)";
  char from[32];
  std::snprintf(from, sizeof from, "%g", s.csr_vector_min_mean_row_length);
  return "vector from " + std::string(from) + " lanes=" + std::to_string(s.vector_lanes);
}

// ---- the device's limits -----------------------------------------------------------------------------

// The largest work-group `name` may run with on this device (CL_KERNEL_WORK_GROUP_SIZE, at most the
// device's maximum). `options` are the ones the Blas builds the kernel with, so the program is shared.
std::size_t kernel_limit(Context& context, const std::string& file, const std::string& name,
                         const std::string& options) {
  const cl::Kernel kernel = context.kernel(file, name, options);
  const std::size_t limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
  return std::min(limit, context.info().max_work_group_size);
}

// Why a work-group of `size` cannot run (empty when it can): above `limit` work-items, or more than
// the device's local memory for `local_bytes_per_item` per work-item.
std::string work_group_limit(const Context& context, std::size_t size, std::size_t limit, const std::string& kernel,
                             std::size_t local_bytes_per_item) {
  if (size > limit)
    return "work-group of " + std::to_string(size) + " > " + std::to_string(limit) + ", the most " + kernel +
           " allows on this device";
  const std::size_t bytes = size * local_bytes_per_item;
  if (bytes > context.info().local_memory)
    return kernel + " needs " + std::to_string(bytes) + " bytes of local memory, the device has " +
           std::to_string(context.info().local_memory);
  return {};
}

// ---- measuring -------------------------------------------------------------------------------------

double total_seconds(const std::vector<TuneOpTime>& ops) {
  double s = 0;
  for (const auto& op : ops) s += op.seconds;
  return s;
}

std::string ops_text(const std::vector<TuneOpTime>& ops) {
  std::string text;
  for (const auto& op : ops)
    text += (text.empty() ? "" : ", ") + op.op + " " + fixed(op.gbytes_per_second(), 2) + " GB/s";
  return text;
}

// A threshold search composed from a kernel search (Tuner::compose_threshold).
struct ThresholdSpec {
  std::string name;                // the search's name
  std::string baseline;            // the label of the kernel below every threshold
  std::vector<double> keys;        // each sweep matrix's key, in the kernel search's order
  std::vector<double> thresholds;  // the finite candidates
  std::function<void(DeviceParams& params, const DeviceParams& variant, double threshold)> set;
  std::function<std::string(const DeviceParams&)> label;
};

class Tuner {
 public:
  Tuner(std::shared_ptr<Context> context, const TuneOptions& options)
      : context_(std::move(context)), options_(options), start_(std::chrono::steady_clock::now()) {}

  TuneResult run();

 private:
  void say(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }
  bool cpu() const { return context_->info().type == DeviceType::Cpu; }
  std::string precision_options() const { return precision_build_option(result_.precision); }

  void choose_sizes();
  void measure_copy();
  SearchSpec blas1_search(Vector& x, Vector& y);
  SearchSpec reduction_search(Vector& x, Vector& y);
  SearchSpec rows_search(Matrix& A, Vector& x, Vector& y);
  SearchSpec kernel_search(std::vector<Matrix>& sweep, std::vector<Vector>& xs, std::vector<Vector>& ys);
  SearchSpec balanced_search(std::vector<Matrix>& sweep, std::vector<Vector>& xs, std::vector<Vector>& ys);
  // A search's run over a sweep of matrices: one SpMV each, timed as the operation names[i].
  std::function<std::vector<TuneOpTime>(Blas&)> spmv_sweep(std::vector<Matrix>& sweep, std::vector<Vector>& xs,
                                                           std::vector<Vector>& ys, std::vector<std::string> names);
  DeviceParams compose_threshold(const TuneSearch& kernels, const ThresholdSpec& spec);
  // Measures every candidate of `spec` and returns the chosen configuration's parameters.
  DeviceParams measure(SearchSpec spec, const std::string& default_label);
  DeviceParams choose(TuneSearch& search) const;

  std::shared_ptr<Context> context_;
  TuneOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::size_t repetitions_ = 5;
  TuneResult result_;
};

void Tuner::choose_sizes() {
  const DeviceInfo& info = context_->info();
  const Precision p = result_.precision;
  // The two vectors, and at another time the copy's two buffers, take at most half the global memory;
  // one array (a quasi-double vector has two of 4 bytes per element) fits one allocation.
  const std::size_t array_bytes = p == Precision::Double ? 8 : 4;
  std::size_t n = options_.vector_size ? options_.vector_size : (std::size_t{1} << (options_.quick ? 18 : 24));
  const std::size_t by_allocation = info.max_allocation / array_bytes;
  const std::size_t by_memory = info.global_memory / 2 / (2 * bytes_per_element(p));
  const std::size_t cap = std::min(by_allocation, by_memory);
  if (n > cap) {
    say("vector size " + std::to_string(n) + " capped to " + std::to_string(cap) + " by the device's memory");
    n = cap;
  }
  if (n == 0) throw Error("tune_device: no vector fits: the device reports no usable memory");
  result_.vector_size = n;
  result_.matrix = !options_.matrix.empty() ? options_.matrix
                   : options_.quick         ? "poisson3d:24"
                   : cpu()                  ? "poisson3d:64"
                                            : "poisson3d:128";
}

// The copy bandwidth the kernels are compared with: enqueueCopyBuffer of one vector's bytes, counted
// as read plus write, the fastest of the repetitions.
void Tuner::measure_copy() {
  const std::size_t bytes = result_.vector_size * bytes_per_element(result_.precision);
  cl::Buffer from = context_->allocate(bytes, "tune copy source");
  cl::Buffer to = context_->allocate(bytes, "tune copy destination");
  auto& queue = context_->queue();
  const cl_uchar pattern = 1;
  queue.enqueueFillBuffer(from, pattern, 0, bytes);
  queue.enqueueFillBuffer(to, pattern, 0, bytes);  // touches every page before the timed copies
  double best = kInfinity;
  for (std::size_t r = 0; r <= repetitions_; ++r) {
    cl::Event event;
    queue.enqueueCopyBuffer(from, to, 0, 0, bytes, nullptr, &event);
    event.wait();
    const double seconds = static_cast<double>(event.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                                               event.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
                           1e-9;
    if (r > 0 && seconds > 0) best = std::min(best, seconds);  // run 0 warms up
  }
  result_.copy_gbytes_per_second = std::isfinite(best) ? 2.0 * static_cast<double>(bytes) / best * 1e-9 : 0;
  say("copy: " + fixed(result_.copy_gbytes_per_second, 2) + " GB/s (enqueueCopyBuffer of " +
      bytes_text(static_cast<double>(bytes)) + ")");
}

DeviceParams Tuner::measure(SearchSpec spec, const std::string& default_label) {
  TuneSearch search;
  search.name = spec.name;
  search.metric = spec.metric;
  search.skipped = spec.skipped;
  const std::size_t count = spec.candidates.size();
  say(spec.name + ": " + std::to_string(count) + " configurations (" + spec.metric + "), " +
      std::to_string(spec.skipped.size()) + " beyond the device's limits");
  for (const std::string& s : spec.skipped) say(spec.name + ": skip " + s);
  if (count == 0) throw Error("tune_device: " + spec.name + ": every configuration is beyond the device's limits");

  // Round robin: pass r times every configuration still in the running once, so a slow drift of the
  // machine's load (other processes) touches all of them alike instead of favouring whichever ran in
  // a quiet moment. Pass 0 also warms each one up (kernel builds, the runtime's specialisation for the
  // launch) and decides which are pruned.
  std::vector<Blas> blases;
  blases.reserve(count);
  for (const Candidate& c : spec.candidates) {
    BlasOptions blas_options;
    blas_options.params = c.params;
    blases.emplace_back(context_, Location::Device, result_.precision, blas_options);
    TuneMeasurement m;
    m.search = spec.name;
    m.label = c.label;
    m.params = c.params;
    m.is_default = c.label == default_label;
    search.measured.push_back(std::move(m));
  }
  double best = kInfinity;
  for (std::size_t i = 0; i < count; ++i) {
    TuneMeasurement& m = search.measured[i];
    spec.run(blases[i]);
    m.ops = spec.run(blases[i]);
    best = std::min(best, m.seconds());
    say("[" + spec.name + " " + std::to_string(i + 1) + "/" + std::to_string(count) + "] " + m.label +
        (m.is_default ? " (default)" : "") + ": " + ops_text(m.ops));
  }
  std::size_t pruned = 0;
  for (TuneMeasurement& m : search.measured) {
    // The default is the baseline every choice is compared with: it always gets every repetition.
    m.pruned = spec.prune && !m.is_default && m.seconds() > kPruneFactor * best;
    pruned += m.pruned ? 1 : 0;
  }
  if (pruned > 0)
    say(spec.name + ": " + std::to_string(pruned) + " configurations timed once only (over " + fixed(kPruneFactor, 0) +
        "x the fastest first run)");
  for (std::size_t r = 1; r < repetitions_; ++r) {
    for (std::size_t i = 0; i < count; ++i) {
      TuneMeasurement& m = search.measured[i];
      if (m.pruned) continue;
      std::vector<TuneOpTime> ops = spec.run(blases[i]);
      // The fastest run of each operation: the others were slowed by something else.
      for (std::size_t k = 0; k < ops.size(); ++k)
        if (ops[k].seconds < m.ops[k].seconds) m.ops[k] = ops[k];
    }
  }
  std::stable_sort(search.measured.begin(), search.measured.end(),
                   [](const TuneMeasurement& a, const TuneMeasurement& b) { return a.seconds() < b.seconds(); });
  DeviceParams chosen = choose(search);
  result_.searches.push_back(std::move(search));
  return chosen;
}

// The fastest configuration, unless the default is within kKeepDefaultMargin of it: a difference that
// small is within the run-to-run noise, and a tuned file should not change the device's behaviour on
// the strength of noise.
DeviceParams Tuner::choose(TuneSearch& search) const {
  const TuneMeasurement& fastest = search.measured.front();
  const auto def = std::find_if(search.measured.begin(), search.measured.end(),
                                [](const TuneMeasurement& m) { return m.is_default; });
  if (def != search.measured.end() && def != search.measured.begin() &&
      def->seconds() <= fastest.seconds() * (1 + kKeepDefaultMargin)) {
    search.note =
        "default kept: within " + fixed(100 * kKeepDefaultMargin, 0) + "% of the fastest (" + fastest.label + ")";
    search.chosen = def->label;
    say(search.name + ": " + search.note);
    return def->params;
  }
  search.chosen = fastest.label;
  say(search.name + ": best " + fastest.label + ", " + fixed(fastest.gbytes_per_second(), 2) + " GB/s");
  return fastest.params;
}

// ---- the searches ----------------------------------------------------------------------------------

// BLAS1: the variant and its launch shape, timed on AXPY and DOT (DOT's reduction stage keeps the
// current reduction parameters; the reduction search refines them next).
SearchSpec Tuner::blas1_search(Vector& x, Vector& y) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "blas1";
  spec.metric = "axpy + dot, " + std::to_string(result_.vector_size) + " elements";
  const std::size_t axpy_limit =
      kernel_limit(*context_, "blas1/axpy.cl", "axpy", precision_options() + " -DCLKR_GRID_STRIDE");
  auto add = [&](const Blas1Params& b) {
    DeviceParams p = base;
    p.blas1 = b;
    const std::string limit = b.variant == Blas1Variant::GridStride
                                  ? work_group_limit(*context_, b.work_group_size, axpy_limit, "axpy", 0)
                                  : std::string();
    add_candidate(spec, blas1_label(b), p, limit);
  };
  add(base.blas1);
  const std::vector<std::size_t> groups =
      options_.quick ? std::vector<std::size_t>{4} : std::vector<std::size_t>{1, 2, 4, 8, 16, 32};
  const std::vector<std::size_t> sizes = options_.quick ? std::vector<std::size_t>{64} : kWorkGroupSizes;
  const std::vector<std::size_t> items =
      options_.quick ? std::vector<std::size_t>{1, 2} : std::vector<std::size_t>{1, 2, 4};
  const std::vector<std::size_t> widths =
      options_.quick ? std::vector<std::size_t>{8} : std::vector<std::size_t>{4, 8, 16};
  // Chunked: one work-item per work-group, so each chunk is its own group, which a CPU runtime gives a core.
  for (std::size_t i : items)
    for (std::size_t w : widths) add({Blas1Variant::Chunked, 1, base.blas1.groups_per_compute_unit, i, w});
  for (std::size_t s : sizes)
    for (std::size_t g : groups)
      add({Blas1Variant::GridStride, s, g, base.blas1.work_items_per_compute_unit, base.blas1.vector_width});
  spec.run = [this, &x, &y, sign = 1.0](Blas& blas) mutable {
    blas.reset_counters();
    sign = -sign;  // y moves back and forth instead of growing
    blas.axpy(0.25 * sign, x, y);
    blas.dot_async(x, y);
    context_->finish();
    const auto& c = blas.counters();
    return std::vector<TuneOpTime>{{"axpy", c.at("axpy").seconds, c.at("axpy").bytes},
                                   {"dot", c.at("dot").seconds, c.at("dot").bytes}};
  };
  return spec;
}

// Reduction: DOT's partial-sum grid. Grid-stride only: the chunked DOT sums one chunk per work-item
// and the reduction parameters would only size its final single work-group.
SearchSpec Tuner::reduction_search(Vector& x, Vector& y) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "reduction";
  spec.metric = "dot, " + std::to_string(result_.vector_size) + " elements";
  const std::string options = precision_options() + " -DCLKR_GRID_STRIDE";
  const std::size_t limit = std::min(kernel_limit(*context_, "blas1/dot.cl", "dot_partial", options),
                                     kernel_limit(*context_, "blas1/dot.cl", "dot_final", options));
  auto add = [&](const ReductionParams& r) {
    DeviceParams p = base;
    p.reduction = r;
    add_candidate(spec, reduction_label(r), p,
                  work_group_limit(*context_, r.work_group_size, limit, "dot", bytes_per_element(result_.precision)));
  };
  add(base.reduction);
  const std::vector<std::size_t> groups =
      options_.quick ? std::vector<std::size_t>{4} : std::vector<std::size_t>{1, 2, 4, 8, 16, 32};
  for (std::size_t s : options_.quick ? std::vector<std::size_t>{64} : kWorkGroupSizes)
    for (std::size_t g : groups) add({s, g});
  spec.run = [this, &x, &y](Blas& blas) {
    blas.reset_counters();
    blas.dot_async(x, y);
    context_->finish();
    const auto& c = blas.counters();
    return std::vector<TuneOpTime>{{"dot", c.at("dot").seconds, c.at("dot").bytes}};
  };
  return spec;
}

// SpMV row kernels (CSR scalar; CSR4, ELL and HYB launch the same way): on GPUs the work-group size,
// on CPUs the rows each single-item work-group walks (0: about four blocks per core). Timed on the
// given matrix in CSR with the vector kernel switched off.
SearchSpec Tuner::rows_search(Matrix& A, Vector& x, Vector& y) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "spmv_rows";
  spec.metric = "spmv (CSR scalar) on " + result_.matrix;
  const std::size_t limit =
      kernel_limit(*context_, "spmv/csr.cl", "spmv_csr_scalar", precision_options() + " -DALPHA_ONE -DBETA_ZERO");
  auto add = [&](const SpmvParams& s) {
    DeviceParams p = base;
    p.spmv = s;
    p.spmv.csr_vector_min_mean_row_length = kInfinity;
    // A CPU runs the row kernels with one work-item per work-group, whatever the size asked.
    add_candidate(spec, rows_label(s, cpu()), p,
                  cpu() ? std::string() : work_group_limit(*context_, s.work_group_size, limit, "spmv_csr_scalar", 0));
  };
  add(base.spmv);
  if (cpu()) {
    for (std::size_t r : options_.quick ? std::vector<std::size_t>{0, 64}
                                        : std::vector<std::size_t>{0, 1, 4, 16, 64, 256, 1024, 4096}) {
      SpmvParams s = base.spmv;
      s.rows_per_work_item = r;
      add(s);
    }
  } else {
    for (std::size_t w : options_.quick ? std::vector<std::size_t>{64} : kWorkGroupSizes) {
      SpmvParams s = base.spmv;
      s.work_group_size = w;
      add(s);
    }
  }
  spec.run = [this, &A, &x, &y](Blas& blas) {
    blas.reset_counters();
    blas.spmv(1.0, A, x, 0.0, y);
    context_->finish();
    const OpCounters& c = blas.counters().at("spmv");
    return std::vector<TuneOpTime>{{"spmv", c.seconds, c.bytes}};
  };
  return spec;
}

// The CSR kernels on a sweep of matrices whose rows hold 8, 12, 16 and 32 entries (the candidate
// thresholds): the scalar kernel, and the vector kernel with each lane count. None is pruned: a kernel
// slow on short rows may still win on long ones, and the threshold choice needs every pair.
SearchSpec Tuner::kernel_search(std::vector<Matrix>& sweep, std::vector<Vector>& xs, std::vector<Vector>& ys) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "spmv_kernels";
  spec.metric = "spmv (CSR) on rows of 8, 12, 16, 32 entries";
  spec.prune = false;
  const std::size_t limit =
      kernel_limit(*context_, "spmv/csr.cl", "spmv_csr_vector", precision_options() + " -DALPHA_ONE -DBETA_ZERO");
  const std::size_t group = std::min(base.spmv.work_group_size, limit);
  DeviceParams scalar = base;
  scalar.spmv.csr_vector_min_mean_row_length = kInfinity;
  add_candidate(spec, "scalar", scalar, "");
  const std::vector<std::size_t> lanes_space =
      options_.quick ? std::vector<std::size_t>{base.spmv.vector_lanes} : std::vector<std::size_t>{4, 8, 16, 32};
  for (std::size_t lanes : lanes_space) {
    DeviceParams p = base;
    p.spmv.csr_vector_min_mean_row_length = 0;
    p.spmv.vector_lanes = lanes;
    add_candidate(spec, "vector lanes=" + std::to_string(lanes), p,
                  lanes > group
                      ? std::to_string(lanes) + " lanes > the vector kernel's work-group of " + std::to_string(group)
                      : std::string());
  }
  std::vector<std::string> names;
  for (std::size_t length : kSweepRowLengths) names.push_back("rows=" + std::to_string(length));
  spec.run = spmv_sweep(sweep, xs, ys, names);
  return spec;
}

std::function<std::vector<TuneOpTime>(Blas&)> Tuner::spmv_sweep(std::vector<Matrix>& sweep, std::vector<Vector>& xs,
                                                                std::vector<Vector>& ys,
                                                                std::vector<std::string> names) {
  return [this, &sweep, &xs, &ys, names = std::move(names)](Blas& blas) {
    std::vector<TuneOpTime> ops;
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      blas.reset_counters();
      blas.spmv(1.0, sweep[i], xs[i], 0.0, ys[i]);
      context_->finish();
      const OpCounters& c = blas.counters().at("spmv");
      ops.push_back({names[i], c.seconds, c.bytes});
    }
    return ops;
  };
}

// A threshold chosen from a kernel search without measuring anything again: candidate (variant v,
// threshold t) runs sweep matrix i on v when its key (row length, longest/mean row) is t or more and on
// the baseline kernel otherwise, so its time is the sum of those measurements; threshold infinity is the
// baseline alone. Every threshold is scored with the same numbers (each kernel was measured once per
// matrix), so noise cannot favour one threshold over another on a matrix where both run the same kernel.
DeviceParams Tuner::compose_threshold(const TuneSearch& kernels, const ThresholdSpec& spec) {
  TuneSearch search;
  search.name = spec.name;
  search.metric = "composed from " + kernels.name;
  const auto baseline = std::find_if(kernels.measured.begin(), kernels.measured.end(),
                                     [&](const TuneMeasurement& m) { return m.label == spec.baseline; });
  const std::string default_label = spec.label(result_.defaults);
  auto add = [&](const TuneMeasurement& variant, double threshold) {
    TuneMeasurement m = *baseline;
    m.search = search.name;
    m.params = result_.params;
    spec.set(m.params, variant.params, threshold);
    m.label = spec.label(m.params);
    for (const TuneMeasurement& existing : search.measured)
      if (existing.label == m.label) return;
    m.is_default = m.label == default_label;
    m.pruned = false;
    for (std::size_t i = 0; i < spec.keys.size(); ++i)
      if (spec.keys[i] >= threshold) m.ops[i] = variant.ops[i];
    search.measured.push_back(std::move(m));
  };
  add(*baseline, kInfinity);
  for (const TuneMeasurement& variant : kernels.measured)
    if (variant.label != spec.baseline)
      for (double t : spec.thresholds)
        if (std::isfinite(t)) add(variant, t);
  std::stable_sort(search.measured.begin(), search.measured.end(),
                   [](const TuneMeasurement& a, const TuneMeasurement& b) { return a.seconds() < b.seconds(); });
  DeviceParams chosen = choose(search);
  result_.searches.push_back(std::move(search));
  return chosen;
}

// CSR on power-law matrices: the row kernels (what the scalar/vector threshold picks) against the
// load-balanced kernels in each blocking, work-group blocks of 1 to 16 entries per work-item. None is
// pruned: the threshold search needs every kernel on every matrix.
SearchSpec Tuner::balanced_search(std::vector<Matrix>& sweep, std::vector<Vector>& xs, std::vector<Vector>& ys) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "spmv_balanced";
  spec.metric = "spmv (CSR) on power-law rows, longest/mean";
  for (const Matrix& A : sweep) spec.metric += " " + fixed(A.stats().max_row_length / A.stats().mean_row_length, 1);
  spec.prune = false;
  DeviceParams rows = base;
  rows.spmv.csr_balanced_min_row_ratio = kInfinity;
  add_candidate(spec, "row kernels", rows, "");
  const std::size_t limit = kernel_limit(*context_, "spmv/csr_balanced.cl", "spmv_csr_balanced",
                                         precision_options() + " -DALPHA_ONE -DBETA_ZERO");
  const std::size_t group = std::min(base.spmv.work_group_size, limit);
  const std::size_t accumulator = result_.precision == Precision::Single ? 4 : 8;
  const std::vector<std::size_t> entries =
      options_.quick ? std::vector<std::size_t>{4} : std::vector<std::size_t>{1, 2, 4, 8, 16};
  for (RowBlocking blocks : {RowBlocking::WorkGroup, RowBlocking::WorkItem}) {
    for (std::size_t per_item : blocks == RowBlocking::WorkItem ? std::vector<std::size_t>{4} : entries) {
      DeviceParams p = base;
      p.spmv.csr_balanced_min_row_ratio = 0;
      p.spmv.csr_balanced_blocks = blocks;
      p.spmv.csr_balanced_entries_per_item = per_item;
      // A block's products and the reduction's partial sums in local memory.
      const std::string too_big =
          blocks == RowBlocking::WorkGroup
              ? work_group_limit(*context_, group, limit, "spmv_csr_balanced", (per_item + 1) * accumulator)
              : std::string();
      add_candidate(spec, balanced_label(p.spmv), p, too_big);
    }
  }
  std::vector<std::string> names;
  for (int longest : kBalancedSweepMaxRows) names.push_back("max=" + std::to_string(longest));
  spec.run = spmv_sweep(sweep, xs, ys, names);
  return spec;
}

// A matrix of about `nnz` entries with exactly `length` per row, at random distinct columns within
// 2*length of the diagonal (the locality of a mesh matrix in a bandwidth-reducing order).
HostCsrMatrix banded_matrix(std::size_t length, std::size_t nnz, std::uint64_t seed) {
  const auto rows = static_cast<std::int32_t>(std::max<std::size_t>(nnz / length, 4 * length + 1));
  const auto len = static_cast<std::int32_t>(length);
  HostCsrMatrix A;
  A.rows = A.cols = rows;
  A.row_offsets.reserve(static_cast<std::size_t>(rows) + 1);
  A.col_indices.reserve(static_cast<std::size_t>(rows) * length);
  std::mt19937_64 engine(seed);
  std::vector<std::int32_t> window;
  for (std::int32_t i = 0; i < rows; ++i) {
    const std::int32_t first = std::max(0, i - 2 * len), last = std::min(rows - 1, i + 2 * len);
    window.clear();
    for (std::int32_t j = first; j <= last; ++j) window.push_back(j);
    // A partial Fisher-Yates shuffle picks `length` distinct columns.
    for (std::int32_t k = 0; k < len; ++k) {
      const auto pick = k + static_cast<std::int32_t>(engine() % static_cast<std::uint64_t>(window.size() - k));
      std::swap(window[k], window[pick]);
    }
    std::sort(window.begin(), window.begin() + len);
    A.col_indices.insert(A.col_indices.end(), window.begin(), window.begin() + len);
    A.row_offsets.push_back(static_cast<std::int32_t>(A.col_indices.size()));
  }
  A.values.resize(A.col_indices.size());
  for (double& v : A.values) v = 2.0 * (static_cast<double>(engine() >> 11) * 0x1.0p-53) - 1.0;
  return A;
}

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> v(n);
  for (double& x : v) x = 2.0 * (static_cast<double>(engine() >> 11) * 0x1.0p-53) - 1.0;
  return v;
}

TuneResult Tuner::run() {
  const DeviceInfo& info = context_->info();
  result_.precision = options_.precision.value_or(info.fp64 ? Precision::Double : Precision::QuasiDouble);
  if (result_.precision == Precision::Double && !info.fp64)
    throw Error("tune_device: double precision needs fp64, which " + info.summary() + " lacks; tune in qdouble");
  repetitions_ = options_.repetitions ? options_.repetitions : (options_.quick ? 2 : 5);
  result_.quick = options_.quick;
  result_.defaults = default_device_params(info);
  result_.params = result_.defaults;
  choose_sizes();
  // Read before anything is measured, so a bad matrix fails at once.
  const HostCsrMatrix host = load_matrix(result_.matrix);
  if (host.rows != host.cols)
    throw Error("tune_device: the SpMV matrix " + result_.matrix + " is " + std::to_string(host.rows) + " x " +
                std::to_string(host.cols) + "; a square matrix is needed");
  say("tuning " + info.summary() + " in " + to_string(result_.precision) + ": vectors of " +
      std::to_string(result_.vector_size) + " elements, SpMV on " + result_.matrix + ", " +
      std::to_string(repetitions_) + " timed runs per configuration");
  measure_copy();

  {
    Vector x(context_, random_values(result_.vector_size, 1), "tune.x");
    Vector y(context_, random_values(result_.vector_size, 2), "tune.y");
    result_.params.blas1 = measure(blas1_search(x, y), blas1_label(result_.defaults.blas1)).blas1;
    if (result_.params.blas1.variant == Blas1Variant::GridStride) {
      result_.params.reduction = measure(reduction_search(x, y), reduction_label(result_.defaults.reduction)).reduction;
    } else {
      TuneSearch skipped;
      skipped.name = "reduction";
      skipped.metric = "dot";
      skipped.note =
          "not searched: the chunked DOT sums one chunk per work-item, so the reduction parameters only "
          "size its final work-group; kept at the defaults";
      say("reduction: " + skipped.note);
      result_.searches.push_back(std::move(skipped));
    }
  }

  {
    Matrix A(context_, host, Format::Csr);
    Vector x(context_, random_values(static_cast<std::size_t>(host.cols), 3), "tune.spmv.x");
    Vector y(context_, static_cast<std::size_t>(host.rows), "tune.spmv.y");
    const DeviceParams best = measure(rows_search(A, x, y), rows_label(result_.defaults.spmv, cpu()));
    result_.params.spmv.work_group_size = best.spmv.work_group_size;
    result_.params.spmv.rows_per_work_item = best.spmv.rows_per_work_item;
  }
  {
    // Each sweep matrix holds as many entries as the given matrix: at least 64 rows' worth, and at most
    // 2^24 (some 200 MB in double, a long enough SpMV on any device) so four of them always fit.
    const auto nnz = std::clamp<std::size_t>(static_cast<std::size_t>(host.nnz()), 64 * kSweepRowLengths.back(),
                                             std::size_t{1} << 24);
    std::vector<Matrix> sweep;
    std::vector<Vector> xs, ys;
    for (std::size_t length : kSweepRowLengths) {
      const HostCsrMatrix B = banded_matrix(length, nnz, length);
      sweep.emplace_back(context_, B, Format::Csr);
      xs.emplace_back(context_, random_values(static_cast<std::size_t>(B.cols), length + 100), "tune.sweep.x");
      ys.emplace_back(context_, static_cast<std::size_t>(B.rows), "tune.sweep.y");
    }
    measure(kernel_search(sweep, xs, ys), "");
    TuneSearch& kernels = result_.searches.back();
    kernels.chosen.clear();  // a table of measurements; the threshold search makes the choice from it
    kernels.note = "per kernel and row length; spmv_threshold chooses from these";
    const TuneSearch measured = kernels;
    ThresholdSpec spec;
    spec.name = "spmv_threshold";
    spec.baseline = "scalar";
    for (std::size_t length : kSweepRowLengths) spec.keys.push_back(static_cast<double>(length));
    spec.thresholds = spec.keys;
    spec.set = [](DeviceParams& p, const DeviceParams& variant, double threshold) {
      p.spmv.csr_vector_min_mean_row_length = threshold;
      p.spmv.vector_lanes = variant.spmv.vector_lanes;
    };
    spec.label = [](const DeviceParams& p) { return threshold_label(p.spmv); };
    const DeviceParams best = compose_threshold(measured, spec);
    result_.params.spmv.csr_vector_min_mean_row_length = best.spmv.csr_vector_min_mean_row_length;
    if (!std::isinf(best.spmv.csr_vector_min_mean_row_length))
      result_.params.spmv.vector_lanes = best.spmv.vector_lanes;
  }
  {
    // Power-law matrices of as many entries as the sweep above (15 to 1,015 entries a row: at least
    // 64 rows' worth of the longest), each row kernel as the threshold above just chose.
    const auto nnz = std::clamp<std::size_t>(static_cast<std::size_t>(host.nnz()), 64 * 1015, std::size_t{1} << 24);
    std::vector<Matrix> sweep;
    std::vector<Vector> xs, ys;
    std::vector<double> ratios;
    for (int longest : kBalancedSweepMaxRows) {
      PowerLawOptions shape;
      shape.max_row_length = longest;
      // About nnz entries: the mean row is some 20-60 entries, so first a matrix of 4096 rows to learn it.
      const double mean = static_cast<double>(powerlaw(4096, shape).nnz()) / 4096;
      const HostCsrMatrix B = powerlaw(static_cast<int>(std::max(4096.0, static_cast<double>(nnz) / mean)), shape);
      sweep.emplace_back(context_, B, Format::Csr);
      ratios.push_back(sweep.back().stats().max_row_length / sweep.back().stats().mean_row_length);
      xs.emplace_back(context_, random_values(static_cast<std::size_t>(B.cols), longest), "tune.balanced.x");
      ys.emplace_back(context_, static_cast<std::size_t>(B.rows), "tune.balanced.y");
    }
    measure(balanced_search(sweep, xs, ys), "");
    TuneSearch& kernels = result_.searches.back();
    kernels.chosen.clear();  // spmv_balanced_threshold makes the choice from these
    kernels.note = "per kernel and matrix; spmv_balanced_threshold chooses from these";
    const TuneSearch measured = kernels;
    ThresholdSpec spec;
    spec.name = "spmv_balanced_threshold";
    spec.baseline = "row kernels";
    spec.keys = ratios;
    spec.thresholds = ratios;
    spec.thresholds.push_back(result_.defaults.spmv.csr_balanced_min_row_ratio);
    spec.set = [](DeviceParams& p, const DeviceParams& variant, double threshold) {
      p.spmv.csr_balanced_min_row_ratio = threshold;
      p.spmv.csr_balanced_blocks = variant.spmv.csr_balanced_blocks;
      p.spmv.csr_balanced_entries_per_item = variant.spmv.csr_balanced_entries_per_item;
    };
    spec.label = [](const DeviceParams& p) { return balanced_threshold_label(p.spmv); };
    const SpmvParams best = compose_threshold(measured, spec).spmv;
    result_.params.spmv.csr_balanced_min_row_ratio = best.csr_balanced_min_row_ratio;
    if (!std::isinf(best.csr_balanced_min_row_ratio)) {
      result_.params.spmv.csr_balanced_blocks = best.csr_balanced_blocks;
      result_.params.spmv.csr_balanced_entries_per_item = best.csr_balanced_entries_per_item;
    }
  }

  result_.params.source = "tuned:" + utc_date();
  validate_device_params(result_.params);
  result_.seconds = seconds_since(start_);
  say("done in " + fixed(result_.seconds, 1) + " s");
  return std::move(result_);
}

}  // namespace

double TuneMeasurement::seconds() const { return total_seconds(ops); }

double TuneMeasurement::bytes() const {
  double b = 0;
  for (const auto& op : ops) b += op.bytes;
  return b;
}

double TuneMeasurement::gbytes_per_second() const {
  const double s = seconds();
  return s > 0 ? bytes() / s * 1e-9 : 0;
}

const TuneSearch* TuneResult::search(const std::string& name) const {
  for (const auto& s : searches)
    if (s.name == name) return &s;
  return nullptr;
}

TuneResult tune_device(std::shared_ptr<Context> context, const TuneOptions& options) {
  if (!context) throw Error("tune_device: the context is null");
  return translate_cl_errors("tune_device", [&] { return Tuner(std::move(context), options).run(); });
}

}  // namespace clkr
