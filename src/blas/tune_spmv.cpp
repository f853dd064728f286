// The SpMV row-kernel searches: the row kernels' launch shape on the given matrix, then the CSR scalar
// kernel against the vector kernel on a sweep of banded matrices, and the mean row length from which
// the vector kernel runs.
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "device_tuner.hpp"

namespace clkr::detail::tune {
namespace {

// The CSR kernels are timed on a sweep of matrices with these row lengths, which are also the finite
// candidate values of spmv.csr_vector_min_mean_row_length: each sends a different subset of the sweep
// to the vector kernel.
const std::vector<std::size_t> kSweepRowLengths = {8, 12, 16, 32};

std::string rows_label(const SpmvParams& s, bool cpu) {
  if (!cpu) return "wg=" + std::to_string(s.work_group_size);
  return "rows/item=" + (s.rows_per_work_item == 0 ? std::string("auto") : std::to_string(s.rows_per_work_item));
}

std::string threshold_label(const SpmvParams& s) {
  if (std::isinf(s.csr_vector_min_mean_row_length)) return "scalar only (vector from inf)";
  char from[32];
  std::snprintf(from, sizeof from, "%g", s.csr_vector_min_mean_row_length);
  return "vector from " + std::string(from) + " lanes=" + std::to_string(s.vector_lanes);
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
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.values.resize(A.col_indices.size());
  for (double& v : A.values) v = 2.0 * (static_cast<double>(engine() >> 11) * 0x1.0p-53) - 1.0;
  return A;
}

}  // namespace

void Tuner::tune_spmv_rows(const HostCsrMatrix& host) {
  Matrix A(context_, host, Format::Csr);
  Vector x(context_, random_values(static_cast<std::size_t>(host.cols), 3), "tune.spmv.x");
  Vector y(context_, static_cast<std::size_t>(host.rows), "tune.spmv.y");
  const DeviceParams best = measure(rows_search(A, x, y), rows_label(result_.defaults.spmv, cpu()));
  result_.params.spmv.work_group_size = best.spmv.work_group_size;
  result_.params.spmv.rows_per_work_item = best.spmv.rows_per_work_item;
}

void Tuner::tune_csr_threshold(const HostCsrMatrix& host) {
  // Each sweep matrix holds as many entries as the given matrix: at least 64 rows' worth, and at most
  // 2^24 (some 200 MB in double, a long enough SpMV on any device) so four of them always fit.
  const auto nnz =
      std::clamp<std::size_t>(static_cast<std::size_t>(host.nnz()), 64 * kSweepRowLengths.back(), std::size_t{1} << 24);
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
  if (!std::isinf(best.spmv.csr_vector_min_mean_row_length)) result_.params.spmv.vector_lanes = best.spmv.vector_lanes;
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

}  // namespace clkr::detail::tune
