// `clkr bench rhs [MATRIX...] --k K`: K right-hand sides solved three ways, time per column:
//   separate  K complete solves, each with its own Matrix, Blas (and Jacobi): what K calls of `clkr
//             solve` pay, the device setup included;
//   loop      solve_many column by column on one setup (SolveOptions::batch_columns = false);
//   batched   solve_many's batched CG: the K CGs in lockstep, the matrix read once per iteration.
// Wall clock (the device drained), median of --reps; docs/performance.md ("Several right-hand sides")
// has the bytes-per-iteration prediction these are compared with.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "app_common.hpp"
#include "bench_commands.hpp"
#include "bench_common.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"
#include "clkr/solver/solve_many.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> bench_rhs_specs = {
    {"--k", "K", "right-hand sides (default 8)"},
    {"--solver", "NAME", "cg or pcg (CG with Jacobi; default cg)"},
    {"--precisions", "LIST", "single,qdouble,double (default: every precision the device has)"},
    {"--tol", "T", "relative tolerance (default 1e-8; 1e-5 in single)"},
    {"--reps", "N", "timed runs of each way, median reported (default 1)"},
    {"--csv", "FILE", "write one CSV row per matrix x precision x way"},
    {"--profile", nullptr, "print the Blas counters (per kernel) of the loop and batched runs"},
    {"--device", "SEL", "OpenCL device (as for clkr solve)"},
};

struct Outcome {
  double seconds = 0;
  // The Blas counters' kernel time (OpenCL profiling; the Jacobi applications of the column loop and
  // of separate solves run on the preconditioner's own Blas and are not in it).
  double kernel_seconds = 0;
  int iterations = 0, min_iterations = 0, max_iterations = 0;
  bool converged = true;
};

// K right-hand sides: random columns, different for every column.
std::vector<Vector> right_hand_sides(const std::shared_ptr<Context>& context, std::size_t n, int k) {
  std::vector<Vector> B;
  for (int j = 0; j < k; ++j) B.emplace_back(context, random_vector(n, 100 + j), "b");
  return B;
}

Outcome summarize(const std::vector<SolveResult>& results, double seconds, double kernel_seconds) {
  Outcome o;
  o.seconds = seconds;
  o.kernel_seconds = kernel_seconds;
  o.min_iterations = results.empty() ? 0 : results[0].iterations;
  for (const SolveResult& r : results) {
    o.iterations += r.iterations;
    o.min_iterations = std::min(o.min_iterations, r.iterations);
    o.max_iterations = std::max(o.max_iterations, r.iterations);
    o.converged = o.converged && r.converged();
  }
  return o;
}

// One way of solving the K columns, timed from the first call to the drained queue.
Outcome run_way(const std::string& way, const std::shared_ptr<Context>& context, const HostCsrMatrix& host, Precision p,
                bool pcg, int k, const SolveOptions& options, bool profile) {
  const auto n = static_cast<std::size_t>(host.rows);
  std::vector<Vector> B = right_hand_sides(context, n, k), X;
  for (int j = 0; j < k; ++j) X.emplace_back(context, n, "x");
  const SolverKind kind = pcg ? SolverKind::Pcg : SolverKind::Cg;
  if (way == "separate") {
    std::vector<SolveResult> results;
    double kernel_seconds = 0;
    Stopwatch clock;
    for (int j = 0; j < k; ++j) {
      Matrix A(context, host, Format::Csr);
      Blas blas(context, Location::Device, p);
      results.push_back(solve(kind, blas, A, B[j], X[j], options));
      kernel_seconds += total_of(blas.counters()).seconds;
    }
    context->finish();
    return summarize(results, clock.seconds(), kernel_seconds);
  }
  Matrix A(context, host, Format::Csr);
  Blas blas(context, Location::Device, p);
  SolveOptions o = options;
  o.batch_columns = way == "batched";
  // Warm-up runs put the matrix on the device and build (or load) every kernel the timed run meets:
  // all K columns for two iterations (the batched kernels are built per column count), then two
  // columns to the tolerance (the convergence check's kernels). The setup is what `separate` pays K
  // times and the others once; the timed run measures the iterations.
  {
    SolveOptions warm = o;
    warm.max_iterations = 2;
    solve_many(kind, blas, A, B, X, warm);
    std::vector<Vector> B2 = right_hand_sides(context, n, std::min(k, 2)), X2;
    for (std::size_t j = 0; j < B2.size(); ++j) X2.emplace_back(context, n, "x");
    solve_many(kind, blas, A, B2, X2, o);
    context->finish();
  }
  blas.reset_counters();
  Stopwatch clock;
  const std::vector<SolveResult> results = solve_many(kind, blas, A, B, X, o);
  context->finish();
  const double seconds = clock.seconds();
  if (profile) {
    std::cout << way << ", " << to_string(p) << ":\n";
    blas.report(std::cout);
  }
  return summarize(results, seconds, total_of(blas.counters()).seconds);
}

}  // namespace

int bench_rhs_command(const Args& args) {
  const ParsedArgs opts("bench rhs", bench_rhs_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "bench rhs [MATRIX...] [options]",
                "Solves K right-hand sides of each MATRIX (default poisson3d:64) with CG three ways: K separate\n"
                "complete solves, solve_many column by column, and solve_many's batched CG; time per column.",
                bench_rhs_specs);
    return 0;
  }
  const int k = static_cast<int>(opts.integer("--k", 8, 1, 4096));
  const std::string solver = opts.has("--solver") ? opts.text("--solver") : "cg";
  if (solver != "cg" && solver != "pcg") throw UsageError("bench rhs: --solver must be cg or pcg, not " + solver);
  std::vector<Precision> requested_precisions = parse_precisions_option(opts);
  const int reps = static_cast<int>(opts.integer("--reps", 1, 1, 1000));
  std::vector<std::string> matrices = opts.positional();
  if (matrices.empty()) matrices.push_back("poisson3d:64");

  BenchProgress progress(false);
  const BenchSetup setup = open_bench_setup(opts, std::move(requested_precisions), progress);
  const std::shared_ptr<Context>& context = setup.context;
  std::cout << "\n" << k << " right-hand sides, " << solver << ", wall time per column (median of " << reps << ")\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-8s %-9s %12s %12s %14s %16s %9s\n", "matrix", "prec", "way", "ms/column",
                "kernel ms/col", "iters min-max", "us/column-iter", "vs loop");
  std::cout << line;

  CsvTable csv({"matrix", "n", "nnz", "precision", "solver", "k", "way", "status", "reps", "seconds_median",
                "seconds_per_column", "iterations_total", "iterations_min", "iterations_max",
                "seconds_per_column_iteration", "kernel_seconds", "speedup_vs_loop", "device", "note"});
  for (const std::string& spec : matrices) {
    const HostCsrMatrix host = load_matrix(spec);
    for (Precision p : setup.precisions) {
      SolveOptions options;
      options.relative_tolerance = opts.has("--tol")        ? opts.number("--tol", 1e-8, 0)
                                   : p == Precision::Single ? 1e-5
                                                            : 1e-8;
      // The ways take turns within each repetition, so a burst of load on the shared machine falls on
      // all three rather than on one.
      const std::vector<std::string> ways = {"loop", "batched", "separate"};
      std::map<std::string, std::vector<double>> seconds, kernel_seconds;
      std::map<std::string, Outcome> outcome;
      std::map<std::string, std::string> failure;
      for (int r = 0; r < reps; ++r) {
        for (const std::string& way : ways) {
          if (!failure[way].empty()) continue;
          progress.step("rhs " + spec + " " + to_string(p) + " " + way + " (" + std::to_string(r + 1) + ")");
          try {
            outcome[way] = run_way(way, context, host, p, solver == "pcg", k, options, opts.has("--profile"));
            seconds[way].push_back(outcome[way].seconds);
            kernel_seconds[way].push_back(outcome[way].kernel_seconds);
          } catch (const std::exception& e) {
            failure[way] = one_line(e.what());
          }
        }
      }
      const double loop_seconds = spread_of(seconds["loop"]).median;
      for (const std::string& way : ways) {
        csv.add_row();
        csv.set("matrix", display_name(spec));
        csv.set("n", std::to_string(host.rows));
        csv.set("nnz", std::to_string(host.nnz()));
        csv.set("precision", to_string(p));
        csv.set("solver", solver);
        csv.set("k", std::to_string(k));
        csv.set("way", way);
        csv.set("device", context->info().name);
        progress.clear();
        if (!failure[way].empty()) {
          csv.set("status", "error");
          csv.set("note", failure[way]);
          std::cout << display_name(spec) << " " << to_string(p) << " " << way << ": error: " << failure[way] << "\n";
          continue;
        }
        const Outcome& o = outcome[way];
        const double median = spread_of(seconds[way]).median, kernel = spread_of(kernel_seconds[way]).median;
        const double per_column_iteration = o.iterations > 0 ? median / o.iterations : 0;
        const double speedup = median > 0 ? loop_seconds / median : 0;
        csv.set("status", o.converged ? "ok" : "not-converged");
        csv.set("reps", std::to_string(reps));
        csv.set("seconds_median", median);
        csv.set("seconds_per_column", median / k);
        csv.set("iterations_total", std::to_string(o.iterations));
        csv.set("iterations_min", std::to_string(o.min_iterations));
        csv.set("iterations_max", std::to_string(o.max_iterations));
        csv.set("seconds_per_column_iteration", per_column_iteration);
        csv.set("kernel_seconds", kernel);
        csv.set("speedup_vs_loop", speedup);
        const std::string iters = std::to_string(o.min_iterations) + "-" + std::to_string(o.max_iterations);
        std::snprintf(line, sizeof line, "%-16s %-8s %-9s %12.2f %12.2f %14s %16.2f %8.2fx%s\n",
                      display_name(spec).c_str(), to_string(p).c_str(), way.c_str(), 1e3 * median / k, 1e3 * kernel / k,
                      iters.c_str(), 1e6 * per_column_iteration, speedup, o.converged ? "" : "  (not all converged)");
        std::cout << line << std::flush;
      }
    }
  }
  progress.clear();
  if (opts.has("--csv")) {
    csv.write_file(opts.text("--csv"));
    std::cout << "wrote " << opts.text("--csv") << "\n";
  }
  return 0;
}

}  // namespace clkr::app
