// The load-balanced CSR searches: the row kernels against the load-balanced kernels in each blocking on
// a sweep of power-law matrices, and the longest/mean row ratio from which the load-balanced ones run.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "clkr/io/generators.hpp"
#include "device_tuner.hpp"

namespace clkr::detail::tune {
namespace {

// The load-balanced CSR kernels are timed on power-law matrices (rows of 15 to these many entries:
// longest / mean row about 2.5, 4, 10 and 18), whose ratios are also the candidate thresholds
// spmv.csr_balanced_min_row_ratio.
const std::vector<int> kBalancedSweepMaxRows = {60, 120, 480, 1015};

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

}  // namespace

void Tuner::tune_balanced_threshold(const HostCsrMatrix& host) {
  // Power-law matrices of as many entries as tune_csr_threshold's sweep (15 to 1,015 entries a row: at
  // least 64 rows' worth of the longest), each row kernel as that threshold just chose.
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

}  // namespace clkr::detail::tune
