// Internal to src/blas: the Tuner behind clkr::tune_device, its searches as data, and what the files
// that define its steps share (tuner.cpp runs them; tune_measure.cpp, tune_threshold.cpp, tune_space.cpp
// and one file per kernel family: tune_blas1.cpp, tune_spmv.cpp, tune_spmv_balanced.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/blas/tuner.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"

// Its own namespace within detail: the names here (Candidate, SearchSpec, fixed) are the tuner's alone.
namespace clkr::detail::tune {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

inline const std::vector<std::size_t> kWorkGroupSizes = {64, 128, 256, 512, 1024};

inline std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
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
void add_candidate(SearchSpec& spec, std::string label, const DeviceParams& params, const std::string& limit);

// ---- the device's limits -----------------------------------------------------------------------------

// The largest work-group `name` may run with on this device (CL_KERNEL_WORK_GROUP_SIZE, at most the
// device's maximum). `options` are the ones the Blas builds the kernel with, so the program is shared.
std::size_t kernel_limit(Context& context, const std::string& file, const std::string& name,
                         const std::string& options);

// Why a work-group of `size` cannot run (empty when it can): above `limit` work-items, or more than
// the device's local memory for `local_bytes_per_item` per work-item.
std::string work_group_limit(const Context& context, std::size_t size, std::size_t limit, const std::string& kernel,
                             std::size_t local_bytes_per_item);

// n values uniform in [-1, 1), the same for the same seed: the searches' vectors.
std::vector<double> random_values(std::size_t n, std::uint64_t seed);

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
  // The steps of run(), one per kernel family, each keeping its choices in result_.params: BLAS1 (and
  // the reduction when grid-stride), the row kernels' launch shape on `host`, the CSR scalar/vector
  // threshold and the load-balanced threshold on sweeps of as many entries as `host`.
  void tune_blas1();
  void tune_spmv_rows(const HostCsrMatrix& host);
  void tune_csr_threshold(const HostCsrMatrix& host);
  void tune_balanced_threshold(const HostCsrMatrix& host);
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
  // False when the fastest is still unconfirmed after kMaxChallengers: the default is then kept.
  bool confirm_challengers(TuneSearch& search, const SearchSpec& spec, std::vector<Blas>& blases) const;
  DeviceParams choose(TuneSearch& search, bool fastest_confirmed = true) const;

  std::shared_ptr<Context> context_;
  TuneOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::size_t repetitions_ = 5;
  TuneResult result_;
};

}  // namespace clkr::detail::tune
