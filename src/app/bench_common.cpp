// The benchmark suites' shared pieces: their common start, copy bandwidth, statistics, counters, CSV.
#include "bench_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

#include "clkr/runtime/error.hpp"

namespace clkr::app {

CopyBandwidth measure_copy_bandwidth(Context& context) {
  const DeviceInfo& info = context.info();
  if (!context.profiling())
    throw Error("measure_copy_bandwidth: the copies are timed on the device, which needs a Context with profiling");
  std::size_t bytes = std::size_t{256} << 20;
  bytes = std::min<std::uint64_t>(bytes, info.global_memory / 4);
  bytes = std::min<std::uint64_t>(bytes, info.max_allocation);
  bytes = bytes / 4096 * 4096;
  if (bytes == 0) throw Error("measure_copy_bandwidth: device " + info.name + " reports no usable memory");

  constexpr int repetitions = 7;
  return translate_cl_errors("measure_copy_bandwidth", [&] {
    cl::Buffer source = context.allocate(bytes, "copy bandwidth source");
    cl::Buffer target = context.allocate(bytes, "copy bandwidth target");
    auto& queue = context.queue();
    // Written once so the source pages exist (a never-touched buffer can be cheaper to read).
    queue.enqueueFillBuffer(source, cl_uchar{1}, 0, bytes);
    std::vector<double> rates;
    for (int r = 0; r <= repetitions; ++r) {
      cl::Event event;
      queue.enqueueCopyBuffer(source, target, 0, 0, bytes, nullptr, &event);
      event.wait();
      const auto start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      const auto end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      // The first copy is a warm-up (first touch of the target's pages).
      if (r > 0 && end > start) rates.push_back(2.0 * static_cast<double>(bytes) / static_cast<double>(end - start));
    }
    const Spread s = spread_of(rates);  // bytes per nanosecond = GB/s
    CopyBandwidth result;
    result.buffer_bytes = bytes;
    result.repetitions = static_cast<int>(rates.size());
    result.gbytes_per_second = s.median;
    result.min_gbytes_per_second = s.min;
    result.max_gbytes_per_second = s.max;
    return result;
  });
}

void print_copy_bandwidth(std::ostream& out, const CopyBandwidth& copy) {
  char line[256];
  std::snprintf(
      line, sizeof line,
      "copy bandwidth: %.3g GB/s (read + write, %zu MiB clEnqueueCopyBuffer, median of %d, range %.3g - %.3g)\n",
      copy.gbytes_per_second, copy.buffer_bytes >> 20, copy.repetitions, copy.min_gbytes_per_second,
      copy.max_gbytes_per_second);
  out << line;
}

BenchProgress::BenchProgress(bool log_steps)
    : terminal_(stderr_is_terminal()), log_steps_(log_steps), line_(terminal_) {}

void BenchProgress::step(const std::string& text) {
  if (terminal_) {
    line_.show(text);
  } else if (log_steps_) {
    std::cerr << "bench: " << text << "\n";
  }
}

void BenchProgress::detail(const std::string& text) {
  if (terminal_) line_.show(text);
}

std::vector<Precision> parse_precisions_option(const ParsedArgs& opts) {
  std::vector<Precision> precisions;
  for (const auto& p : opts.list("--precisions", {})) {
    try {
      precisions.push_back(parse_precision(p));
    } catch (const Error&) {
      throw UsageError("--precisions: unknown precision '" + p + "' (expected single, qdouble, double)");
    }
  }
  return precisions;
}

std::vector<BenchFormat> parse_formats_option(const ParsedArgs& opts) {
  std::vector<BenchFormat> formats;
  for (const auto& name : opts.list("--formats", {"csr", "csr4", "ell", "hyb", "sell", "dia"})) {
    BenchFormat f;
    f.name = name;
    if (name == "auto") {
      f.automatic = true;
    } else if (name == "csr-balanced" || name == "csr-rows") {
      f.csr_balanced_min_row_ratio = name == "csr-balanced" ? 0 : std::numeric_limits<double>::infinity();
    } else {
      try {
        f.format = parse_format(name);
        f.name = to_string(f.format);
      } catch (const Error&) {
        throw UsageError("--formats: unknown format '" + name +
                         "' (expected csr, csr4, ell, hyb, sell, dia, auto, csr-balanced or csr-rows)");
      }
    }
    formats.push_back(std::move(f));
  }
  return formats;
}

BlasOptions BenchFormat::blas_options(const DeviceInfo& device) const {
  BlasOptions options;
  if (csr_balanced_min_row_ratio) {
    DeviceParams params = device_params(device);
    params.spmv.csr_balanced_min_row_ratio = *csr_balanced_min_row_ratio;
    params.source += " with " + name;
    options.params = params;
  }
  return options;
}

Format BenchFormat::format_for(const MatrixStats& stats, const DeviceInfo& device, bool plain_cg) const {
  return automatic ? choose_format(stats, device, plain_cg).format : format;
}

std::string BenchFormat::label(Format chosen) const { return automatic ? "auto:" + to_string(chosen) : name; }

BenchSetup open_bench_setup(const ParsedArgs& opts, std::vector<Precision> precisions, BenchProgress& progress) {
  BenchSetup setup;
  setup.context = open_context(opts.text("--device"));
  const DeviceInfo& device = setup.context->info();
  if (precisions.empty()) {
    precisions = {Precision::Single, Precision::QuasiDouble};
    if (device.fp64) precisions.push_back(Precision::Double);
  }
  setup.precisions = std::move(precisions);
  std::cout << "device: " << device.summary() << " [" << device.index_selector() << "]\n";
  progress.step("measuring the device copy bandwidth");
  setup.copy = measure_copy_bandwidth(*setup.context);
  progress.clear();
  print_copy_bandwidth(std::cout, setup.copy);
  return setup;
}

Spread spread_of(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  const double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return {median, samples.front(), samples.back()};
}

OpCounters total_of(const std::map<std::string, OpCounters>& counters) {
  OpCounters total;
  for (const auto& [name, c] : counters) total += c;
  return total;
}

TopKernel top_kernel_of(const std::map<std::string, OpCounters>& counters) {
  TopKernel top;
  double best = -1, total = 0;
  for (const auto& [name, c] : counters) {
    total += c.seconds;
    if (c.seconds > best) {
      best = c.seconds;
      top.name = name;
    }
  }
  top.share = total > 0 ? best / total : 0;
  return top;
}

void CsvTable::set(const std::string& column, const std::string& value) {
  if (rows_.empty()) throw Error("CsvTable::set before add_row");
  const auto it = std::find(columns_.begin(), columns_.end(), column);
  if (it == columns_.end()) throw Error("CsvTable: no column '" + column + "'");
  rows_.back()[static_cast<std::size_t>(it - columns_.begin())] = value;
}

void CsvTable::set(const std::string& column, double value) {
  if (!std::isfinite(value)) return set(column, std::string());
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  set(column, std::string(buffer));
}

namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void write_line(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << csv_field(fields[i]);
  out << "\n";
}

}  // namespace

void CsvTable::write(std::ostream& out) const {
  write_line(out, columns_);
  for (const auto& row : rows_) write_line(out, row);
}

void CsvTable::write_file(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw Error("cannot open '" + path + "' for writing");
  write(out);
  if (!out.flush()) throw Error("writing '" + path + "' failed");
}

}  // namespace clkr::app
