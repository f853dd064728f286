// clkr::tune_device: the search behind `clkr tune`. Each kernel's search is data (CLBlast-style): a
// parameter space with the device's limits as constraints and a metric in GB/s; the choices of every
// search make a DeviceParams that device_params() picks up once written under the cache directory.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clkr/blas/device_params.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr {

struct TuneOptions {
  // Elements of the BLAS1 vectors; 0: 2^24 (2^18 when quick). Capped so that the two vectors (and the
  // copy's two buffers) fit half the device's memory and one array fits its maximum allocation.
  std::size_t vector_size = 0;
  // The SpMV matrix: a generator spec or Matrix Market file; empty: poisson3d:64 on CPUs, poisson3d:128
  // on other devices (poisson3d:24 when quick).
  std::string matrix;
  // Timed runs of each configuration after an untimed warm-up; the fastest counts. 0: 5 (2 when quick).
  std::size_t repetitions = 0;
  // Double, or QuasiDouble on a device without fp64, when not set.
  std::optional<Precision> precision;
  // A tiny search (a few configurations per kernel) at small default sizes, for tests and smoke runs.
  bool quick = false;
  // One line per step (configuration measured, configuration skipped and why); may be empty.
  std::function<void(const std::string&)> progress;
};

// One operation's share of a measurement.
struct TuneOpTime {
  std::string op;  // "axpy", "dot", "spmv", ...
  double seconds = 0;
  double bytes = 0;
  double gbytes_per_second() const { return seconds > 0 ? bytes / seconds * 1e-9 : 0; }
};

// One configuration of one search, measured.
struct TuneMeasurement {
  std::string search;  // "blas1", "reduction", "spmv_rows", "spmv_kernels", "spmv_threshold"
  std::string label;   // the configuration: "chunked wg=1 items/cu=2 vw=8"
  DeviceParams params;
  std::vector<TuneOpTime> ops;  // by operation, the fastest of its repetitions
  bool is_default = false;      // the device's built-in default configuration
  bool pruned = false;          // timed once only: its first run was far slower than the fastest first run

  double seconds() const;  // the metric: the sum over ops
  double bytes() const;
  double gbytes_per_second() const;
};

// The outcome of one search: what was measured (fastest first) and skipped, and the choice.
struct TuneSearch {
  std::string name;
  std::string metric;                     // what is timed: "axpy + dot, 16777216 elements", ...
  std::vector<TuneMeasurement> measured;  // fastest first
  std::vector<std::string> skipped;       // "label: reason" for configurations beyond the device's limits
  // The label of the configuration taken; empty when the search did not run, or (spmv_kernels) only
  // feeds another search.
  std::string chosen;
  std::string note;  // why the search did not run, or how its choice was made when not simply the fastest
};

struct TuneResult {
  DeviceParams params;    // every search's choice; source "tuned:<UTC date>"
  DeviceParams defaults;  // default_device_params(): where the search started, and the baseline
  Precision precision = Precision::Double;
  bool quick = false;  // TuneOptions::quick: a smoke test's search space
  std::size_t vector_size = 0;
  std::string matrix;
  double copy_gbytes_per_second = 0;  // enqueueCopyBuffer of one vector, read + write bytes
  std::vector<TuneSearch> searches;
  double seconds = 0;  // wall time of the whole tune

  const TuneSearch* search(const std::string& name) const;  // nullptr when absent
};

// Runs every search on the context's device (docs/tuning.md). Throws clkr::Error for bad input before
// measuring anything (a null context, an unreadable or non-square matrix, double precision on a device
// without fp64, no memory for a vector).
TuneResult tune_device(std::shared_ptr<Context> context, const TuneOptions& options = {});

// For people: sizes and copy bandwidth, then per search its top `per_search` configurations with GB/s
// per operation and as a fraction of the copy bandwidth (the default's and the chosen one's lines also
// when outside the top), and the chosen parameters.
std::string format_tune_report(const TuneResult& result, std::size_t per_search = 5);

// The file device_params() reads: a comment header (device, date, precision, sizes) and
// format_device_params(result.params). Creates the parent directories; throws clkr::Error when the
// file cannot be written.
void write_tuned_params(const TuneResult& result, const DeviceInfo& info, const std::string& path);

}  // namespace clkr
