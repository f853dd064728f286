// `clkr bench solve [MATRIX...]`: time to a tolerance, the preconditioner's setup and the solve timed
// apart, for clkr's methods (CG with none, Jacobi, Chebyshev or AMG, on the device or its host backend)
// against the CPU peers in the same run (Eigen's IC-preconditioned and plain CG, hypre's
// BoomerAMG-PCG), on the same matrices, right-hand side (ones) and tolerance.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>

#include "app_common.hpp"
#include "bench_commands.hpp"
#include "bench_common.hpp"
#include "bench_solve_peers.hpp"
#include "cli_options.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"
#include "json_writer.hpp"
#include "precond_options.hpp"

namespace clkr::app {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::vector<OptionSpec> bench_solve_specs() {
  std::vector<OptionSpec> specs = {
      {"--methods", "LIST",
       "clkr's methods: cg (no preconditioner), jacobi, chebyshev, amg, amg-single (a single-precision\n"
       "hierarchy), amg-update (setup = Preconditioner::update after new values on the same pattern),\n"
       "amg-update-single (the same with a single-precision hierarchy); amg-half,\n"
       "amg-update-half (single precision on binary16 values); amg-blocks, amg-points (node-block\n"
       "smoothing on, off: --amg-block-smoothing on, off, side by side in one run); amg-plain\n"
       "(plain aggregation: --amg-prolongator-relaxation 0, beside amg's in one run); amg-gs,\n"
       "amg-gs-plain (the l1 hybrid Gauss-Seidel smoother, host: only; with plain aggregation);\n"
       "prefix host: for the host backend; suffix -mixed: reliable-update CG in single inside\n"
       "the double solve, the preconditioner in single (cg-mixed, jacobi-mixed, amg-half-mixed, ...)\n"
       "(default cg,jacobi,amg,amg-single,host:amg)"},
      {"--peers", "LIST", "eigen-ic, eigen-cg, hypre (CPU), or none (default eigen-ic,eigen-cg,hypre)"},
      {"--tol", "X", "relative tolerance on ||b - A x|| / ||b|| (default 1e-8), b = ones"},
      {"--maxit", "N", "maximum iterations of every solver (default 20000)"},
      {"--strengthen-check", "N", kStrengthenCheckHelp},
      {"--inner-tol", "X",
       "-mixed methods: the drop of the single-precision residual between reliable updates from double\n"
       "(default 0.1; smaller: fewer updates, each a pass of double-precision work)"},
      {"--reps", "N", "timed repetitions after one warm-up; the median total is reported (default 3)"},
      {"--csv", "FILE", "write one CSV row per matrix and method (columns: docs/benchmarks.md)"},
      {"--json", "FILE", "write the rows and the device as JSON"},
      {"--device", "SEL", "OpenCL device (as for clkr solve)"},
  };
  for (const OptionSpec& spec : precond_option_specs())
    if (std::string(spec.name).rfind("--amg-", 0) == 0 || std::string(spec.name) == "--cheb-degree")
      specs.push_back(spec);
  return specs;
}

// A clkr method: CG on a location with a preconditioner kind (and its precision).
struct Method {
  std::string name;  // as given: "amg", "host:jacobi"
  Location location = Location::Device;
  PrecondKind kind = PrecondKind::None;
  std::optional<Precision> precond_precision;
  ValueStorage matrix_values = ValueStorage::Working;  // amg-half: binary16 values in the hierarchy
  bool update = false;  // time Preconditioner::update (after Matrix::update_values) instead of a setup
  // amg-blocks, amg-points: node-block smoothing on or off whatever --amg-block-smoothing says
  std::optional<AmgOptions::BlockSmoothing> block_smoothing;
  bool plain_aggregation = false;  // amg-plain: prolongator_relaxation 0 whatever the option says
  bool gauss_seidel = false;       // amg-gs, amg-gs-plain: the Gauss-Seidel smoother (host: only)
  // -mixed: iterative refinement with reliable updates (PCG in single inside the double solve, M in
  // single), the solve that `clkr solve --precision mixed` runs
  bool mixed = false;
};

Method parse_method(const std::string& text) {
  Method m;
  m.name = text;
  std::string name = text;
  if (name.rfind("host:", 0) == 0) {
    m.location = Location::Host;
    name = name.substr(5);
  }
  const std::string mixed_suffix = "-mixed";
  if (name.size() > mixed_suffix.size() &&
      name.compare(name.size() - mixed_suffix.size(), std::string::npos, mixed_suffix) == 0) {
    name.resize(name.size() - mixed_suffix.size());
    Method inside = parse_method(name);
    if (inside.precond_precision && *inside.precond_precision != Precision::Single)
      throw UsageError("--methods: " + text + ": the preconditioner of a mixed solve works in single");
    inside.name = text;
    inside.location = m.location;
    inside.mixed = true;
    inside.precond_precision = Precision::Single;
    return inside;
  }
  if (name == "cg") return m;
  if (name == "amg-blocks" || name == "amg-points") {
    m.kind = PrecondKind::Amg;
    m.block_smoothing = name == "amg-blocks" ? AmgOptions::BlockSmoothing::On : AmgOptions::BlockSmoothing::Off;
    return m;
  }
  if (name == "amg-plain" || name == "amg-gs" || name == "amg-gs-plain") {
    m.kind = PrecondKind::Amg;
    m.plain_aggregation = name != "amg-gs";
    m.gauss_seidel = name != "amg-plain";
    return m;
  }
  // amg-single, amg-half: the hierarchy in single precision, its values in single or in binary16;
  // amg-update, amg-update-single, amg-update-half: the same, timing an update instead of a setup.
  if (name.rfind("amg-", 0) == 0) {
    const bool update = name.rfind("amg-update", 0) == 0;
    const std::string variant = name.substr(update ? 10 : 3);
    if (variant.empty() || variant == "-single" || variant == "-half") {
      m.kind = PrecondKind::Amg;
      m.update = update;
      if (!variant.empty()) m.precond_precision = Precision::Single;
      if (variant == "-half") m.matrix_values = ValueStorage::Half;
      return m;
    }
  }
  try {
    m.kind = parse_precond(name);
  } catch (const Error&) {
    throw UsageError(
        "--methods: unknown method '" + text +
        "' (expected cg, jacobi, chebyshev, amg, amg-single, amg-half, amg-update, amg-update-single, "
        "amg-update-half, amg-blocks, amg-points, amg-plain, amg-gs, amg-gs-plain, each optionally host: and "
        "-mixed)");
  }
  if (m.kind == PrecondKind::None) m.name = m.location == Location::Host ? "host:cg" : "cg";
  return m;
}

struct Row {
  std::string matrix;
  std::int64_t n = 0, nnz = 0;
  std::string implementation, method, status = "converged", note;
  int iterations = 0, reps = 0;
  double setup = nan, solve = nan, total = nan, true_residual = nan;
  double vs_hypre = nan, vs_eigen_ic = nan, vs_krylov = nan;
  int levels = 0;
  double operator_complexity = nan;
  bool ok() const { return status == "converged"; }
};

// Median setup, solve and total of the timed samples (the first, a warm-up, dropped by the caller). A
// solve that reports convergence while the true residual ||b - A x|| / ||b|| (recomputed in double for
// every implementation) is more than 10x the tolerance is marked false-convergence: it is not a time to
// that tolerance, so no ratio is taken against it (hypre's PCG stops on its preconditioned residual,
// which on the stiff shell matrices is 100x off the true one).
void summarize(Row& row, const std::vector<SolveSample>& samples, double tolerance) {
  row.reps = static_cast<int>(samples.size());
  if (samples.empty()) return;
  std::vector<double> setup, solve, total;
  for (const SolveSample& s : samples) {
    setup.push_back(s.setup_seconds);
    solve.push_back(s.solve_seconds);
    total.push_back(s.setup_seconds + s.solve_seconds);
  }
  row.setup = spread_of(setup).median;
  row.solve = spread_of(solve).median;
  row.total = spread_of(total).median;
  const SolveSample& last = samples.back();
  row.iterations = last.iterations;
  row.status = last.status;
  row.true_residual = last.true_residual;
  if (!last.note.empty()) row.note += (row.note.empty() ? "" : "; ") + last.note;
  if (row.status == "converged" && !(row.true_residual <= 10 * tolerance)) {
    row.status = "false-convergence";
    row.note += (row.note.empty() ? "" : "; ") + std::string("reported converged, true residual ") +
                number_text(row.true_residual) + " > 10 x tolerance";
  }
}

// One solve of `method`: a fresh preconditioner, or `kept` refreshed by update() (timed as setup), and
// CG from x = 0 (timed as solve).
SolveSample run_clkr(Context& context, const std::shared_ptr<Context>& shared, Matrix& A, Vector& b, Blas& blas,
                     Blas* inner, const PrecondOptions& options, const SolveOptions& solve_options, Row& row,
                     Preconditioner* kept) {
  SolveSample s;
  Stopwatch setup;
  std::unique_ptr<Preconditioner> made;
  if (kept) {
    kept->update(A);
  } else {
    made = make_preconditioner(blas, A, options);
  }
  Preconditioner* M = kept ? kept : made.get();
  context.finish();
  s.setup_seconds = setup.seconds();
  if (const auto* amg = dynamic_cast<const Amg*>(M)) {
    row.levels = static_cast<int>(amg->levels().size());
    row.operator_complexity = amg->operator_complexity();
  }
  Vector x(shared, static_cast<std::size_t>(A.rows()), "x");
  const SolveResult r =
      inner ? iterative_refinement(blas, *inner, A, *M, b, x, solve_options) : cg(blas, A, *M, b, x, solve_options);
  s.solve_seconds = r.seconds;
  // A mixed solve's iterations are its inner ones (its outer ones are the reliable updates).
  s.iterations = inner ? r.inner_iterations : r.iterations;
  s.status = to_string(r.status);
  s.true_residual = r.true_relative_residual;
  if (!r.converged()) {
    s.note = r.message;
  } else if (!r.strengthened.empty()) {
    s.note = "strengthened " + r.strengthened;
  } else if (const PhaseTimes& phases = kept ? M->update_phases() : M->setup_phases(); !phases.empty()) {
    s.note = (kept ? "update: " : "setup: ") + phases_text(phases);  // where the setup time went
    if (const auto* amg = dynamic_cast<const Amg*>(M))
      s.note += "; device commands: " + commands_text(kept ? amg->update_commands() : amg->setup_commands());
  }
  // How often the mixed solve went back to double (--inner-tol trades these passes against drift).
  if (inner && r.converged())
    s.note = std::to_string(r.iterations) + " reliable updates (delta " +
             number_text(solve_options.reliable_update_delta) + ")" + (s.note.empty() ? "" : "; " + s.note);
  return s;
}

void set_ratios(std::vector<Row>& rows, std::size_t first) {
  auto best = [&](auto accept) {
    double t = nan;
    for (std::size_t k = first; k < rows.size(); ++k)
      if (rows[k].ok() && accept(rows[k]) && (std::isnan(t) || rows[k].total < t)) t = rows[k].total;
    return t;
  };
  const double hypre = best([](const Row& r) { return r.implementation == "hypre"; });
  const double eigen_ic = best([](const Row& r) { return r.implementation == "eigen" && r.method == "ic-cg"; });
  // The best of clkr's Krylov methods without a multilevel preconditioner, on the device.
  const double krylov = best(
      [](const Row& r) { return r.implementation == "clkr-device" && (r.method == "cg" || r.method == "jacobi"); });
  for (std::size_t k = first; k < rows.size(); ++k) {
    Row& r = rows[k];
    if (!r.ok()) continue;
    r.vs_hypre = r.total / hypre;
    r.vs_eigen_ic = r.total / eigen_ic;
    if (r.implementation == "clkr-device") r.vs_krylov = r.total / krylov;
  }
}

std::string cell(double x, const char* format) {
  if (std::isnan(x)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

void print_header(std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-12s %-12s %6s %10s %10s %10s %9s %8s %8s %8s\n", "matrix", "impl", "method",
                "iters", "setup ms", "solve ms", "total ms", "residual", "vs hypre", "vs IC", "vs CG");
  out << line;
}

void print_row(std::ostream& out, const Row& r) {
  char line[512];
  if (!r.ok()) {
    std::snprintf(line, sizeof line, "%-16s %-12s %-12s %s after %d iterations: %s\n", r.matrix.c_str(),
                  r.implementation.c_str(), r.method.c_str(), r.status.c_str(), r.iterations, r.note.c_str());
    out << line;
    return;
  }
  std::snprintf(line, sizeof line, "%-16s %-12s %-12s %6d %10s %10s %10s %9s %8s %8s %8s\n", r.matrix.c_str(),
                r.implementation.c_str(), r.method.c_str(), r.iterations, cell(r.setup * 1e3, "%.3f").c_str(),
                cell(r.solve * 1e3, "%.3f").c_str(), cell(r.total * 1e3, "%.3f").c_str(),
                cell(r.true_residual, "%.2e").c_str(), cell(r.vs_hypre, "%.2f").c_str(),
                cell(r.vs_eigen_ic, "%.2f").c_str(), cell(r.vs_krylov, "%.2f").c_str());
  out << line;
}

CsvTable csv_of(const std::vector<Row>& rows, const DeviceInfo& device) {
  CsvTable table({"matrix", "n", "nnz", "implementation", "method", "device", "status", "iterations", "reps",
                  "setup_seconds", "solve_seconds", "total_seconds", "true_relative_residual", "ratio_vs_hypre",
                  "ratio_vs_eigen_ic", "ratio_vs_clkr_krylov", "levels", "operator_complexity", "note"});
  for (const Row& r : rows) {
    table.add_row();
    table.set("matrix", r.matrix);
    table.set("n", static_cast<double>(r.n));
    table.set("nnz", static_cast<double>(r.nnz));
    table.set("implementation", r.implementation);
    table.set("method", r.method);
    table.set("device", r.implementation == "clkr-device" ? device.name : std::string("host CPU"));
    table.set("status", r.status);
    table.set("iterations", r.iterations);
    table.set("reps", r.reps);
    table.set("setup_seconds", r.setup);
    table.set("solve_seconds", r.solve);
    table.set("total_seconds", r.total);
    table.set("true_relative_residual", r.true_residual);
    table.set("ratio_vs_hypre", r.vs_hypre);
    table.set("ratio_vs_eigen_ic", r.vs_eigen_ic);
    table.set("ratio_vs_clkr_krylov", r.vs_krylov);
    if (r.levels > 0) table.set("levels", r.levels);
    table.set("operator_complexity", r.operator_complexity);
    table.set("note", r.note);
  }
  return table;
}

void write_json(const std::string& path, const std::vector<Row>& rows, const DeviceInfo& device) {
  std::ofstream file(path);
  if (!file) throw Error("--json: cannot open '" + path + "' for writing");
  JsonWriter j(file);
  j.begin_object().member("device", device.name).key("rows").begin_array();
  const CsvTable table = csv_of(rows, device);
  for (const auto& values : table.rows()) {
    j.begin_object();
    for (std::size_t c = 0; c < values.size(); ++c) j.member(table.columns()[c], values[c]);
    j.end_object();
  }
  j.end_array().end_object();
  file << "\n";
  if (!file.flush()) throw Error("--json: writing '" + path + "' failed");
}

}  // namespace

int bench_solve_command(const Args& args) {
  const std::vector<OptionSpec> specs = bench_solve_specs();
  const ParsedArgs opts("bench solve", specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "bench solve [MATRIX...] [options]",
                "Time to a tolerance (preconditioner setup + solve) of clkr's CG with each preconditioner,\n"
                "against Eigen's IC-CG and CG and hypre's BoomerAMG-PCG in the same run. MATRIX: .mtx files\n"
                "or generator specs (default poisson3d:64).",
                specs);
    return 0;
  }
  std::vector<Method> methods;
  for (const std::string& m : opts.list("--methods", {"cg", "jacobi", "amg", "amg-single", "host:amg"}))
    methods.push_back(parse_method(m));
  std::vector<std::string> peers = opts.list("--peers", {"eigen-ic", "eigen-cg", "hypre"});
  if (peers == std::vector<std::string>{"none"}) peers.clear();
  for (const std::string& p : peers)
    if (p != "eigen-ic" && p != "eigen-cg" && p != "hypre")
      throw UsageError("--peers: unknown peer '" + p + "' (expected eigen-ic, eigen-cg, hypre or none)");
  const double tolerance = opts.number("--tol", 1e-8, 0);
  const int max_iterations = static_cast<int>(opts.integer("--maxit", 20000, 1, 100000000));
  const int reps = static_cast<int>(opts.integer("--reps", 3, 1, 1000));
  // The AMG and Chebyshev options apply to every method of their kind.
  PrecondOptions base;
  parse_tuning_options(opts, base);
  std::vector<std::string> matrices = opts.positional();
  if (matrices.empty()) matrices.push_back("poisson3d:64");

  BenchProgress progress(!stderr_is_terminal());
  // Wall times only: a queue that times every command would slow clkr down against peers that do not
  // (3-11% of a GPU solve, docs/performance-amg-setup.md).
  ContextOptions context_options;
  context_options.profiling = false;
  const std::shared_ptr<Context> context = open_context(opts.text("--device"), context_options);
  const DeviceInfo& device = context->info();
  std::cout << "device: " << device.summary() << " [" << device.index_selector() << "]\n"
            << "tolerance " << number_text(tolerance) << " on ||b - A x|| / ||b||, b = ones, x0 = 0; " << reps
            << " timed repetitions after a warm-up, medians; setup = the preconditioner's (peers: factorisation /"
            << " AMG setup)\n";
  print_header(std::cout);

  std::vector<Row> rows;
  SolveOptions solve_options;
  solve_options.relative_tolerance = tolerance;
  solve_options.max_iterations = max_iterations;
  solve_options.strengthen_check =
      static_cast<int>(opts.integer("--strengthen-check", solve_options.strengthen_check, 0, INT_MAX));
  if (opts.has("--inner-tol")) solve_options.reliable_update_delta = inner_tol_option(opts);
  for (const std::string& spec : matrices) {
    progress.step(display_name(spec) + ": loading");
    const HostCsrMatrix host = load_matrix(spec);
    if (host.rows != host.cols) throw UsageError(spec + " is not square");
    const MatrixStats stats = compute_stats(host);
    const std::vector<double> ones(static_cast<std::size_t>(host.rows), 1.0);
    const std::size_t first = rows.size();
    // --amg-near-null-space rigid: the modes made once for all of this matrix's methods; where they
    // cannot be made, every clkr row says why.
    PrecondOptions matrix_base = base;
    std::exception_ptr near_null_error;
    try {
      set_near_null_space(opts, spec, host.rows, matrix_base);
    } catch (...) {
      near_null_error = std::current_exception();
    }
    auto new_row = [&](const std::string& implementation, const std::string& method) {
      Row r;
      r.matrix = display_name(spec);
      r.n = host.rows;
      r.nnz = host.nnz();
      r.implementation = implementation;
      r.method = method;
      return r;
    };
    for (const Method& m : methods) {
      Row row = new_row(m.location == Location::Device ? "clkr-device" : "clkr-host", m.name);
      progress.step(row.matrix + ": clkr " + m.name);
      try {
        const Format format =
            m.location == Location::Host
                ? Format::Csr
                : choose_format(stats, device, m.kind == PrecondKind::None || m.kind == PrecondKind::Jacobi).format;
        // The AMG builds its hierarchy on the host: keep the host CSR rather than read the device back.
        MatrixOptions matrix_options = with_sell_layout({}, device_params(device).spmv);
        matrix_options.keep_host_copy = m.kind == PrecondKind::Amg;
        Matrix A(context, host, format, matrix_options);
        Vector b(context, ones, "b");
        Blas blas(context, m.location, Precision::Double);
        std::optional<Blas> inner;
        if (m.mixed) inner.emplace(context, m.location, Precision::Single);
        if (near_null_error) std::rethrow_exception(near_null_error);
        PrecondOptions options = matrix_base;
        options.kind = m.kind;
        options.precision = m.precond_precision;
        options.matrix_values = m.matrix_values;
        if (m.block_smoothing) options.amg.block_smoothing = *m.block_smoothing;
        if (m.plain_aggregation) options.amg.prolongator_relaxation = 0;
        if (m.gauss_seidel) options.amg.smoother = AmgSmoother::GaussSeidel;
        // amg-update: one setup first, then every run gives A new values (a few percent larger each
        // time, as a time step would) and times the preconditioner's update.
        std::unique_ptr<Preconditioner> kept;
        if (m.update) kept = make_preconditioner(blas, A, options);
        std::vector<SolveSample> samples;
        double upload_seconds = 0;
        for (int rep = 0; rep <= reps; ++rep) {
          if (kept) {
            std::vector<double> values = host.values;
            for (double& v : values) v *= 1.0 + 0.02 * (rep + 1);
            Stopwatch upload;
            A.update_values(values);
            context->finish();
            upload_seconds = upload.seconds();
          }
          SolveSample s = run_clkr(*context, context, A, b, blas, inner ? &*inner : nullptr, options, solve_options,
                                   row, kept.get());
          if (rep > 0) samples.push_back(std::move(s));  // the first builds the kernels
        }
        row.note = "format " + to_string(format);
        if (kept) row.note += "; Matrix::update_values " + seconds_text(upload_seconds) + " (not in setup)";
        summarize(row, samples, tolerance);
      } catch (const std::exception& e) {
        row.status = "error";
        row.note = one_line(e.what());
      }
      progress.clear();
      print_row(std::cout, row);
      rows.push_back(std::move(row));
    }
    for (const std::string& p : peers) {
      Row row = new_row(p == "hypre" ? "hypre" : "eigen", p == "hypre" ? "amg-pcg" : p == "eigen-ic" ? "ic-cg" : "cg");
      progress.step(row.matrix + ": " + p);
      try {
        std::unique_ptr<SolvePeer> peer =
            p == "hypre" ? make_hypre_solve(host, ones, tolerance, max_iterations)
                         : make_eigen_solve(host, ones, tolerance, max_iterations, p == "eigen-ic");
        row.note = peer->description();
        std::vector<SolveSample> samples;
        for (int rep = 0; rep <= reps; ++rep) {
          SolveSample s = peer->run();
          if (rep > 0) samples.push_back(std::move(s));
        }
        summarize(row, samples, tolerance);
      } catch (const Unavailable& e) {
        row.status = "unavailable";
        row.note = e.what();
      } catch (const std::exception& e) {
        row.status = "error";
        row.note = one_line(e.what());
      }
      progress.clear();
      print_row(std::cout, row);
      rows.push_back(std::move(row));
    }
    set_ratios(rows, first);
    std::cout << "  ratios (total time) for " << rows[first].matrix << ":";
    for (std::size_t k = first; k < rows.size(); ++k)
      if (rows[k].ok())
        std::cout << " " << rows[k].implementation << "/" << rows[k].method << " vs hypre "
                  << cell(rows[k].vs_hypre, "%.2f") << ", vs IC " << cell(rows[k].vs_eigen_ic, "%.2f") << ";";
    std::cout << "\n";
  }
  if (opts.has("--csv")) csv_of(rows, device).write_file(opts.text("--csv"));
  if (opts.has("--json")) write_json(opts.text("--json"), rows, device);
  return 0;
}

}  // namespace clkr::app
