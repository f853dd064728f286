// What `clkr tune` shows and writes: the report of every search against the copy bandwidth, and the
// tuned-parameter file device_params() reads (docs/tuning.md). Split from tuner.cpp, which measures.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "clkr/blas/tuner.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

}  // namespace

std::string format_tune_report(const TuneResult& result, std::size_t per_search) {
  std::ostringstream out;
  out << "precision " << to_string(result.precision) << ", vectors of " << result.vector_size << " elements, SpMV on "
      << result.matrix << ", copy bandwidth " << fixed(result.copy_gbytes_per_second, 2) << " GB/s, "
      << fixed(result.seconds, 1) << " s in all\n";
  const double copy = result.copy_gbytes_per_second;
  for (const TuneSearch& s : result.searches) {
    out << "\n" << s.name << " (" << s.metric << ")";
    if (s.measured.empty()) {
      out << ": " << s.note << "\n";
      continue;
    }
    out << ": " << s.measured.size() << " measured, " << s.skipped.size() << " beyond the device's limits\n";
    char line[256];
    std::string header;
    for (const auto& op : s.measured.front().ops)
      header += " " + std::string(10 - std::min<std::size_t>(op.op.size(), 9), ' ') + op.op;
    std::snprintf(line, sizeof line, "  %4s  %-34s%s %10s %8s\n", "rank", "configuration", header.c_str(), "GB/s",
                  "of copy");
    out << line << "  " << std::string(4 + 2 + 34 + header.size() + 20, '-') << "\n";
    auto row = [&](std::size_t rank, const TuneMeasurement& m) {
      std::string cells;
      for (const auto& op : m.ops) {
        char cell[32];
        std::snprintf(cell, sizeof cell, " %10.2f", op.gbytes_per_second());
        cells += cell;
      }
      const std::string label = m.label + (m.is_default ? " *" : "");
      std::snprintf(line, sizeof line, "  %4zu  %-34s%s %10.2f %8s%s\n", rank, label.c_str(), cells.c_str(),
                    m.gbytes_per_second(), copy > 0 ? fixed(m.gbytes_per_second() / copy, 2).c_str() : "-",
                    m.pruned ? "  (timed once)" : "");
      out << line;
    };
    for (std::size_t i = 0; i < s.measured.size() && i < per_search; ++i) row(i + 1, s.measured[i]);
    for (std::size_t i = per_search; i < s.measured.size(); ++i)
      if (s.measured[i].is_default || s.measured[i].label == s.chosen) row(i + 1, s.measured[i]);
    if (!s.chosen.empty())
      out << "  chosen: " << s.chosen << (s.note.empty() ? "" : " (" + s.note + ")") << "\n";
    else if (!s.note.empty())
      out << "  (" << s.note << ")\n";
  }
  out << "\n(* the device's default configuration; GB/s counts the bytes each operation must move)\n";
  // Some runtimes copy with one thread (PoCL), so kernels that use every core beat the copy.
  const TuneSearch* blas1 = result.search("blas1");
  if (blas1 && !blas1->measured.empty() && blas1->measured.front().gbytes_per_second() > 1.2 * copy)
    out << "(the kernels outrun enqueueCopyBuffer on this device: its runtime's copy does not use the whole "
           "device, so fractions of the copy bandwidth above 1 are expected)\n";
  out << "\n"
      << "chosen parameters (" << result.params.source << "):\n"
      << format_device_params(result.params);
  return out.str();
}

void write_tuned_params(const TuneResult& result, const DeviceInfo& info, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw Error("write_tuned_params: no file to write the parameters to (the cache directory is off)");
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw Error("write_tuned_params: cannot create the directory '" + parent.string() + "': " + ec.message());
  // Written next to the target and renamed, so a reader never sees half a file.
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << "# clkr tune, " << result.params.source.substr(result.params.source.find(':') + 1)
        << " (UTC): " << info.summary() << ", driver " << info.driver_version << "\n"
        << "# measured" << (result.quick ? " by a quick search (a smoke test)" : "") << " in "
        << to_string(result.precision) << " on vectors of " << result.vector_size << " elements and SpMV on "
        << result.matrix << "; copy bandwidth " << fixed(result.copy_gbytes_per_second, 2) << " GB/s\n"
        << format_device_params(result.params);
    out.close();
    if (!out) {
      fs::remove(partial, ec);
      throw Error("write_tuned_params: cannot write '" + partial + "'");
    }
  }
  fs::rename(partial, path, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::remove(partial, ec);
    throw Error("write_tuned_params: cannot move the parameters into '" + path + "': " + reason);
  }
}

}  // namespace clkr
