// clkr::tune_device: the run of every launch-parameter search (device_tuner.hpp: searches as data, one
// file per kernel family, and tune_measure.cpp's loop that measures a search); the report and the
// parameter file that `clkr tune` writes are tune_report.cpp's.
#include "clkr/blas/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>
#include <utility>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "device_tuner.hpp"

namespace clkr {
namespace detail::tune {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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

}  // namespace

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> v(n);
  for (double& x : v) x = 2.0 * (static_cast<double>(engine() >> 11) * 0x1.0p-53) - 1.0;
  return v;
}

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

  tune_blas1();
  tune_spmv_rows(host);
  tune_csr_threshold(host);
  tune_balanced_threshold(host);

  result_.params.source = "tuned:" + utc_date();
  validate_device_params(result_.params);
  result_.seconds = seconds_since(start_);
  say("done in " + fixed(result_.seconds, 1) + " s");
  return std::move(result_);
}

}  // namespace detail::tune

namespace {

double total_seconds(const std::vector<TuneOpTime>& ops) {
  double s = 0;
  for (const auto& op : ops) s += op.seconds;
  return s;
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
  if (!context->profiling())
    throw Error(
        "tune_device: the tuner times kernels on the device, which needs a Context with profiling "
        "(ContextOptions::profiling)");
  return translate_cl_errors("tune_device", [&] { return detail::tune::Tuner(std::move(context), options).run(); });
}

}  // namespace clkr
