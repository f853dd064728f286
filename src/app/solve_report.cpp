// The text report and the JSON object of `clkr solve`.
#include "solve_report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "clkr/runtime/error.hpp"
#include "json_writer.hpp"
#include "precond_options.hpp"

namespace clkr::app {
namespace {

void write_kernels(JsonWriter& json, const std::map<std::string, OpCounters>& counters, Precision precision,
                   const char* role) {
  for (const auto& [name, c] : counters) {
    json.begin_object()
        .member("name", name)
        .member("blas", role)
        .member("precision", to_string(precision))
        .member("calls", static_cast<std::uint64_t>(c.calls))
        .member("seconds", c.seconds)
        .member("gflops", c.gflops())
        .member("gbytes_per_second", c.gbytes_per_second())
        .end_object();
  }
}

void write_kernels(JsonWriter& json, const Blas& blas, const char* role) {
  write_kernels(json, blas.counters(), blas.precision(), role);
}

// The kernels of a preconditioner's setup by device time, longest first: calls, seconds, share.
void print_setup_kernels(std::ostream& out, const std::map<std::string, OpCounters>& counters) {
  std::vector<std::pair<std::string, OpCounters>> rows(counters.begin(), counters.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  for (const auto& [name, c] : rows) total += c.seconds;
  char line[160];
  std::snprintf(line, sizeof line, "%-28s %8s %12s %8s\n", "kernel", "calls", "seconds", "share");
  out << line;
  for (const auto& [name, c] : rows) {
    std::snprintf(line, sizeof line, "%-28s %8llu %12.6f %7.1f%%\n", name.c_str(),
                  static_cast<unsigned long long>(c.calls), c.seconds, total > 0 ? 100 * c.seconds / total : 0.0);
    out << line;
  }
  std::snprintf(line, sizeof line, "%-28s %8s %12.6f\n", "total", "", total);
  out << line;
}

}  // namespace

void write_history(const std::string& path, const std::vector<IterationRecord>& history) {
  std::ofstream out(path);
  if (!out) throw Error("--history: cannot open '" + path + "' for writing");
  out << "iteration,residual,seconds\n";
  char line[96];
  for (const auto& r : history) {
    std::snprintf(line, sizeof line, "%d,%.17g,%.9g\n", r.iteration, r.residual, r.seconds);
    out << line;
  }
  if (!out.flush()) throw Error("--history: writing '" + path + "' failed");
}

void print_json(std::ostream& out, const SolveRun& run) {
  const SolveResult& r = run.result;
  JsonWriter j(out);
  j.begin_object().member("matrix", run.matrix).member("solver", to_string(run.solver));
  if (run.refinement()) {
    j.member("inner_solver", to_string(run.options.inner_solver))
        .member("refinement", to_string(resolved_refinement(run.options)))
        .member("inner_tolerance", run.inner_tolerance());
  }
  j.member("backend", to_string(run.backend));
  j.member("format", to_string(run.format.format))
      .member("format_reason", run.format_forced ? std::string("--format") : run.format.reason)
      .member("precision", run.mixed ? std::string("mixed") : to_string(run.precision.outer))
      .member("outer_precision", to_string(run.precision.outer));
  if (run.precision.inner) j.member("inner_precision", to_string(*run.precision.inner));
  j.member("device", run.device.name)
      .member("device_selector", run.device.index_selector())
      .member("n", static_cast<std::int64_t>(run.stats.rows))
      .member("nnz", static_cast<std::int64_t>(run.stats.nnz))
      .member("rhs", run.rhs_label)
      .member("tolerance", run.options.relative_tolerance)
      .member("max_iterations", run.options.max_iterations)
      .member("converged", r.converged())
      .member("status", to_string(r.status))
      .member("message", r.message)
      .member("scaling", r.scaling)
      .member("path", r.path)
      .member("strengthened", r.strengthened)
      .member("iterations", r.iterations);
  if (run.refinement()) j.member("inner_iterations", r.inner_iterations);
  j.member("recursive_relative_residual", r.recursive_relative_residual)
      .member("true_relative_residual", r.true_relative_residual);
  if (!std::isnan(run.relative_error)) j.member("relative_error", run.relative_error);
  j.member("load_seconds", run.load_seconds)
      .member("upload_seconds", run.upload_seconds)
      .member("convert_seconds", run.convert_seconds)
      .member("setup_seconds", run.setup_seconds)
      .member("precond_setup_seconds", run.precond ? run.precond->setup_seconds() : 0.0)
      .member("time_to_solution_seconds", run.time_to_solution())
      .member("solve_seconds", r.seconds)
      .member("seconds_per_iteration", run.per_iteration());
  if (run.refinement()) j.member("seconds_per_inner_iteration", run.per_inner_iteration());
  j.member("preconditioned", run.precond != nullptr);
  if (run.precond) write_precond_json(j, *run.precond);
  j.key("kernels").begin_array();
  write_kernels(j, *run.blas, run.refinement() ? "outer" : "solver");
  if (run.inner) write_kernels(j, *run.inner, "inner");
  if (run.precond) {
    write_kernels(j, run.precond->blas(), "preconditioner");
    write_kernels(j, run.precond_setup_kernels, run.precond->precision(), "preconditioner setup");
  }
  j.end_array();
  if (run.verification) {
    const Verification& v = *run.verification;
    j.key("verify")
        .begin_object()
        .member("solver", to_string(v.kind))
        .member("backend", "host")
        .member("precision", "double")
        .member("status", to_string(v.result.status))
        .member("iterations", v.result.iterations)
        .member("true_relative_residual", v.result.true_relative_residual)
        .member("max_relative_difference", v.max_relative_difference)
        .end_object();
  }
  j.end_object();
  out << "\n";
}

void print_preamble(std::ostream& out, const SolveRun& run) {
  const MatrixStats& s = run.stats;
  out << "matrix      " << run.matrix << ": " << s.rows << " x " << s.cols << ", nnz " << s.nnz << " ("
      << number_text(s.mean_row_length) << " per row, min " << s.min_row_length << ", max " << s.max_row_length << ")"
      << (s.symmetric ? ", symmetric" : "") << "\n"
      << "format      " << to_string(run.format.format) << " ("
      << (run.format_forced ? "--format" : "auto, " + run.format.reason) << "), "
      << bytes_text(static_cast<double>(s.bytes_per_format.at(run.format.format))) << " with double values\n"
      << "times       load " << seconds_text(run.load_seconds) << ", upload " << seconds_text(run.upload_seconds)
      << ", value conversion " << seconds_text(run.convert_seconds) << ", kernels + warm-up "
      << seconds_text(run.setup_seconds) << "\n";
  if (run.precond) print_precond(out, *run.precond);
  out << "solver      " << to_string(run.solver)
      << (run.refinement()
              ? " (inner " + to_string(run.options.inner_solver) + ", " + to_string(resolved_refinement(run.options)) +
                    ", inner tol " + number_text(run.inner_tolerance()) + ")"
              : std::string())
      << " in " << run.precision.label << (run.backend == Location::Host ? " on the host backend" : "") << ", tol "
      << number_text(run.options.relative_tolerance) << ", maxit " << run.options.max_iterations << ", rhs "
      << run.rhs_label << (run.options.use_initial_guess ? ", x0 from file" : "")
      << (run.precond ? ", preconditioner " + to_string(run.precond->kind()) : std::string()) << "\n"
      << std::flush;
}

void print_result(std::ostream& out, const SolveRun& run, const ParsedArgs& opts) {
  const SolveResult& r = run.result;
  out << "status      " << run.verdict() << ": " << r.message << "\n";
  if (!r.scaling.empty()) out << "scaling     " << r.scaling << "\n";
  if (!r.path.empty()) out << "path        " << r.path << "\n";
  if (!r.strengthened.empty()) out << "strengthen  " << r.strengthened << "\n";
  out << "iterations  " << r.iterations;
  if (run.refinement()) out << " outer, " << r.inner_iterations << " inner";
  out << "\nresidual    " << number_text(r.true_relative_residual) << " true relative (recursive "
      << number_text(r.recursive_relative_residual) << ")\n";
  if (!std::isnan(run.relative_error)) {
    out << "error       ||x - x_true|| / ||x_true|| = " << number_text(run.relative_error) << "\n";
  }
  out << "time        solve " << seconds_text(r.seconds) << ", " << seconds_text(run.per_iteration()) << " per "
      << (run.refinement() ? "outer iteration, " + seconds_text(run.per_inner_iteration()) + " per inner iteration"
                           : "iteration")
      << "\n";
  if (run.precond)
    out << "to solution " << seconds_text(run.time_to_solution()) << " (preconditioner setup "
        << seconds_text(run.precond->setup_seconds()) << " + solve)\n";
  if (r.status == SolveStatus::Stagnated && run.precision.outer == Precision::Single) {
    out << "hint        single precision cannot reach every tolerance: try --precision mixed, qdouble or "
           "double, or a larger --tol\n";
  }
  if (run.verification) {
    const Verification& v = *run.verification;
    out << "verify      host reference " << to_string(v.kind) << " in double: " << to_string(v.result.status)
        << " after " << v.result.iterations << " iterations, true relative residual "
        << number_text(v.result.true_relative_residual)
        << "; max |x - x_ref| / max |x_ref| = " << number_text(v.max_relative_difference) << "\n";
  }
  if (opts.has("--history")) out << "history     " << opts.text("--history") << "\n";
  if (opts.has("--out-x")) out << "solution    " << opts.text("--out-x") << "\n";
  out << "\nkernels (" << (run.refinement() ? "outer, " : "") << to_string(run.blas->precision()) << "):\n";
  run.blas->report(out);
  if (run.inner) {
    out << "\nkernels (inner, " << to_string(run.inner->precision()) << "):\n";
    run.inner->report(out);
  }
  if (run.precond) {
    out << "\nkernels (preconditioner, " << to_string(run.precond->precision()) << ", " << run.precond->applications()
        << " applications):\n";
    run.precond->blas().report(out);
    if (!run.precond_setup_kernels.empty()) {
      out << "\nkernels (preconditioner setup and one warm-up application, " << to_string(run.backend) << " time):\n";
      print_setup_kernels(out, run.precond_setup_kernels);
    }
  }
}

}  // namespace clkr::app
