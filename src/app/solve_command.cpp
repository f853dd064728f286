// `clkr solve MATRIX` and `clkr cg MATRIX`: load (or generate) a matrix, pick its storage format and
// precision, solve on a device, and report the outcome, the timings and every kernel's counters, as
// text or as one JSON object. Exit code 0 converged, 1 not converged, 2 usage or input error.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>

#include "../runtime/text.hpp"
#include "app_common.hpp"
#include "cli_options.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"
#include "commands.hpp"
#include "memory_check.hpp"
#include "precond_options.hpp"
#include "solve_report.hpp"
#ifdef CLKR_WITH_MPI
#include "dist/dist_commands.hpp"
#endif

namespace clkr::app {
namespace {

std::vector<OptionSpec> solve_specs(bool with_solver) {
  std::vector<OptionSpec> specs;
  if (with_solver)
    specs.push_back(
        {"--solver", "NAME", "cg | pcg | gmres | fgmres | bicgstab | ir (default cg; pcg = cg --precond jacobi)"});
  const std::vector<OptionSpec> common = {
      {"--format", "NAME",
       "csr | csr4 | ell | hyb | sell | dia | auto (default auto: DIA for entries on a few\n"
       "diagonals where the device gains from it; else CSR on CPUs; on GPUs ELL when longest/mean\n"
       "row <= 1.5, else CSR (load-balanced kernels for very long rows); docs/cli.md has the rule)"},
      {"--precision", "P",
       "single | qdouble | double | mixed (default double, qdouble without fp64);\n"
       "mixed: iterative refinement, double (or qdouble) outside, single inside"},
      {"--device", "SEL",
       "OpenCL device: \"P:D\", gpu, cpu or a name substring (default CLKR_DEVICE,\n"
       "else the first GPU, else the first CPU)"},
      {"--tol", "X", "relative tolerance on ||b - A x|| / ||b|| (default 1e-8)"},
      {"--maxit", "N", "maximum iterations (IR: outer steps; default 10000)"},
      {"--restart", "M", "GMRES restart length (default 30)"},
      {"--refinement", "S",
       "restarted | reliable: how iterative refinement couples its precisions (default\n"
       "reliable with CG inside, else restarted; docs/solvers.md)"},
      {"--inner-tol", "X",
       "iterative refinement: the reduction of the inner residual between two outer\n"
       "residuals (restarted: the inner solve's tolerance, default 1e-4; reliable: delta,\n"
       "default 0.1)"},
      {"--cg-path", "P", kCgPathHelp},
      {"--backend", "B",
       "device | host: where the solve computes: the OpenCL device (default), or this\n"
       "machine's cores through the host backend (OpenMP, CSR; on a CPU the faster path for\n"
       "AMG-PCG, and the one --amg-smoother gauss-seidel needs)"},
      {"--strengthen-check", "N", kStrengthenCheckHelp},
      {"--rhs", "R",
       "ones | random | Ax | FILE.mtx (default ones); Ax: b = A x_true with a seeded\n"
       "random x_true, and the error of x is reported"},
      {"--seed", "N", "seed of the random right-hand side / x_true (default 1)"},
      {"--x0", "FILE", "initial guess (Matrix Market array); default zero"},
      {"--out-x", "FILE", "write the solution as a Matrix Market array"},
      {"--history", "FILE", "write the residual history as CSV: iteration,residual,seconds"},
      {"--json", nullptr, "print one JSON object on stdout instead of the report"},
      {"--verify", nullptr, "also solve with the host reference backend in double and compare x"},
      {"--quiet", nullptr, "print only the one-line outcome"},
  };
  specs.insert(specs.end(), common.begin(), common.end());
  const auto& precond = precond_option_specs();
  specs.insert(specs.end(), precond.begin(), precond.end());
  return specs;
}

// The option values as usage errors naming the option; the library's parse_solver message already
// lists the accepted names.
SolverKind parse_solver_option(const std::string& name) {
  try {
    return parse_solver(name);
  } catch (const Error& e) {
    throw UsageError(std::string("--solver: ") + e.what());
  }
}

std::optional<Format> parse_format_option(const std::string& name) {
  if (name == "auto") return std::nullopt;
  try {
    return parse_format(name);
  } catch (const Error&) {
    throw UsageError("--format: unknown format '" + name + "' (expected one of: csr, csr4, ell, hyb, sell, dia, auto)");
  }
}

Precision parse_precision_option(const std::string& name) {
  try {
    return parse_precision(name);
  } catch (const Error&) {
    throw UsageError("--precision: unknown precision '" + name + "' (expected one of: single, qdouble, double, mixed)");
  }
}

PrecisionPlan plan_precision(const std::string& name, SolverKind kind, const DeviceInfo& device) {
  const Precision widest = device.fp64 ? Precision::Double : Precision::QuasiDouble;
  PrecisionPlan plan{widest, std::nullopt, to_string(widest)};
  if (name == "mixed") {
    plan.inner = Precision::Single;
    plan.label = "mixed (" + to_string(widest) + " outer, single inner)";
    return plan;
  }
  if (!name.empty()) {
    plan.outer = parse_precision_option(name);
    plan.label = to_string(plan.outer);
  }
  if (plan.outer == Precision::Double && !device.fp64) {
    throw UsageError("--precision double: device " + device.name +
                     " has no fp64 (cl_khr_fp64); use --precision qdouble or mixed");
  }
  if (kind == SolverKind::Ir) {
    plan.inner = Precision::Single;
    plan.label += " outer, single inner";
  }
  return plan;
}

// --refinement and --inner-tol into `options` (whose inner_solver is set).
void set_refinement_options(const ParsedArgs& opts, SolveOptions& options) {
  if (opts.has("--refinement")) {
    const std::string scheme = detail::to_lower(opts.text("--refinement"));
    if (scheme != "restarted" && scheme != "reliable") {
      throw UsageError("--refinement: unknown scheme '" + opts.text("--refinement") +
                       "' (expected one of: restarted, reliable)");
    }
    options.refinement = parse_refinement(scheme);
  }
  const bool reliable = resolved_refinement(options) == RefinementScheme::ReliableUpdate;
  if (reliable && options.inner_solver != SolverKind::Cg) {
    throw UsageError("--refinement reliable: runs CG inside, not " + to_string(options.inner_solver) +
                     " (use --refinement restarted)");
  }
  if (opts.has("--inner-tol"))
    (reliable ? options.reliable_update_delta : options.inner_relative_tolerance) = inner_tol_option(opts);
}

struct Rhs {
  std::vector<double> b;
  std::vector<double> x_true;  // only for "Ax"
  std::string label;
};

Rhs make_rhs(const std::string& spec, const HostCsrMatrix& A, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(A.rows);
  const std::string name = detail::to_lower(spec);
  if (name == "ones") return {std::vector<double>(n, 1.0), {}, "ones"};
  if (name == "random") return {random_vector(n, seed), {}, "random (seed " + std::to_string(seed) + ")"};
  if (name == "ax") {
    Rhs r;
    r.x_true = random_vector(n, seed);
    r.b = host_multiply(A, r.x_true);
    r.label = "A x_true, x_true random (seed " + std::to_string(seed) + ")";
    return r;
  }
  std::vector<double> b;
  try {
    b = read_matrix_market_array(spec);
  } catch (const Error& e) {
    throw Error(std::string("--rhs: ") + e.what());
  }
  if (b.size() != n) {
    throw UsageError("--rhs " + spec + ": has " + std::to_string(b.size()) + " entries but the matrix has " +
                     std::to_string(n) + " rows");
  }
  return {std::move(b), {}, spec};
}

// Makes the matrix values exist in precision p now, so their conversion is timed apart from the solve.
void prepare_values(Matrix& A, Precision p) {
  if (A.format() == Format::Sell) {
    A.sell_values(p);
    return;
  }
  if (A.format() == Format::Dia) {
    A.dia_values(p);
    return;
  }
  if (A.format() != Format::Ell) A.csr_values(p);
  if (A.format() == Format::Ell || A.format() == Format::Hyb) A.ell_values(p);
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// max_i |x_i - y_i| / max_i |y_i| (|x - y| alone when y = 0): normwise, so tiny components of y do
// not turn rounding into huge relative differences.
double max_relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double diff = 0;
  for (std::size_t i = 0; i < x.size(); ++i) diff = std::max(diff, std::abs(x[i] - y[i]));
  const double scale = max_abs(y);
  return scale > 0 ? diff / scale : diff;
}

double relative_error(const std::vector<double>& x, const std::vector<double>& x_true) {
  long double e = 0, t = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    e += static_cast<long double>(x[i] - x_true[i]) * (x[i] - x_true[i]);
    t += static_cast<long double>(x_true[i]) * x_true[i];
  }
  return static_cast<double>(t > 0 ? std::sqrt(e / t) : std::sqrt(e));
}

void print_help(std::ostream& out, const std::string& command, bool cg_only, const std::vector<OptionSpec>& specs) {
  const std::string common =
      "MATRIX: a Matrix Market file (.mtx, .mtx.gz) or poisson2d:N / poisson3d:N.\n"
      "Exit code: 0 converged, 1 not converged, 2 usage or input error.";
  print_usage(out, command + " MATRIX [options]",
              (cg_only ? "Solves A x = b with the conjugate gradient method (clkr solve --solver cg).\n"
                       : "Solves A x = b with a Krylov method on an OpenCL device.\n") +
                  common,
              specs);
}

int run_solve(const std::string& command, const Args& args, std::optional<SolverKind> fixed_kind) {
  const auto specs = solve_specs(!fixed_kind);
  const ParsedArgs opts(command, specs, args);
  if (opts.has("--help")) {
    print_help(std::cout, command, fixed_kind.has_value(), specs);
    return 0;
  }
  if (opts.positional().size() != 1) {
    throw UsageError(opts.positional().empty()
                         ? "missing MATRIX (a .mtx/.mtx.gz file, poisson2d:N or poisson3d:N)"
                         : "expected one MATRIX, got " + std::to_string(opts.positional().size()) +
                               " arguments (first extra: '" + opts.positional()[1] + "')");
  }
  SolveRun run;
  run.matrix = opts.positional()[0];

  // Every option is checked before the device is opened or the matrix read.
  const SolverKind kind = fixed_kind ? *fixed_kind : parse_solver_option(opts.text("--solver", "cg"));
  const std::optional<Format> forced_format = parse_format_option(detail::to_lower(opts.text("--format", "auto")));
  const std::string precision_name = detail::to_lower(opts.text("--precision", ""));
  if (!precision_name.empty() && precision_name != "mixed") parse_precision_option(precision_name);
  SolveOptions& options = run.options;
  options.relative_tolerance = opts.number("--tol", 1e-8, 0);
  options.max_iterations = static_cast<int>(opts.integer("--maxit", 10000, 0, INT_MAX));
  options.restart = static_cast<int>(opts.integer("--restart", 30, 1, 1 << 20));
  options.record_history = opts.has("--history");
  if (opts.has("--cg-path")) options.cg_path = cg_path_option(opts.text("--cg-path"));
  run.backend = backend_option(opts.text("--backend", "device"));
  if (run.backend == Location::Host && opts.has("--cg-path"))
    throw UsageError("--cg-path chooses how CG runs on a device; it does not apply to --backend host");
  if (run.backend == Location::Host && forced_format && *forced_format != Format::Csr)
    throw UsageError("--backend host computes in CSR; --format " + to_string(*forced_format) + " is for the device");
  options.strengthen_check = static_cast<int>(opts.integer("--strengthen-check", options.strengthen_check, 0, INT_MAX));
  const auto seed = static_cast<std::uint64_t>(opts.integer("--seed", 1, 0, INT64_MAX));
  const bool json = opts.has("--json"), quiet = opts.has("--quiet");
  const bool refinement = precision_name == "mixed" || kind == SolverKind::Ir;
  // --solver pcg is CG with Jacobi; iterative refinement with pcg inside keeps its own inner PCG and
  // takes no --precond. Another preconditioner works inside the refinement, in the inner precision
  // (reliable-update PCG with cg).
  if (refinement && kind == SolverKind::Pcg && has_precond_options(opts))
    throw UsageError(
        "--solver pcg with --precision mixed runs CG with its own Jacobi inside; for --precond use --solver cg");
  PrecondOptions precond_options = parse_precond_options(opts, kind == SolverKind::Pcg && !refinement);
  if (refinement && precond_options.kind != PrecondKind::None) {
    if (!precond_options.precision) precond_options.precision = Precision::Single;
    if (*precond_options.precision != Precision::Single)
      throw UsageError("--precond-precision " + opts.text("--precond-precision") +
                       ": with --precision mixed the preconditioner works in the inner precision, single (or half)");
  }
  const SolverKind solver_kind = kind == SolverKind::Pcg && !refinement ? SolverKind::Cg : kind;
  if (refinement) {
    options.inner_solver = kind == SolverKind::Ir ? SolverKind::Cg : kind;
    set_refinement_options(opts, options);
  } else {
    for (const char* option : {"--refinement", "--inner-tol"}) {
      if (opts.has(option)) {
        throw UsageError(std::string(option) +
                         " applies to iterative refinement only (--precision mixed or --solver ir)");
      }
    }
  }
  const bool report = !json && !quiet;
  std::ostream& out = std::cout;

  auto context = open_context(opts.text("--device"));
  run.device = context->info();
  run.precision = plan_precision(precision_name, kind, run.device);
  run.mixed = precision_name == "mixed";
  run.solver = run.precision.inner ? SolverKind::Ir : kind;
  if (run.refinement()) {
    options.inner_precision = *run.precision.inner;
    options.inner_solver = kind == SolverKind::Ir ? SolverKind::Cg : kind;
  }
  if (report) out << "device      " << run.device.summary() << " [" << run.device.index_selector() << "]\n";

  check_solve_memory(run.matrix, declared_size(run.matrix), run.precision.outer, run.device);
  Stopwatch load_clock;
  const HostCsrMatrix host = load_matrix(run.matrix);
  run.load_seconds = load_clock.seconds();
  if (host.rows != host.cols) {
    throw UsageError(run.matrix + " is " + std::to_string(host.rows) + " x " + std::to_string(host.cols) +
                     ": the solvers need a square matrix");
  }
  set_near_null_space(opts, run.matrix, host.rows, precond_options);
  run.stats = compute_stats(host);
  run.format_forced = forced_format.has_value() && run.backend == Location::Device;
  run.format = run.backend == Location::Host ? FormatChoice{Format::Csr, "the host backend computes in CSR"}
               : forced_format               ? FormatChoice{*forced_format, "--format"}
                                             : choose_format(run.stats, run.device,
                                                             solver_kind == SolverKind::Cg && !refinement &&
                                                                 (precond_options.kind == PrecondKind::None ||
                                                    precond_options.kind == PrecondKind::Jacobi));

  const Rhs rhs = make_rhs(opts.text("--rhs", "ones"), host, seed);
  run.rhs_label = rhs.label;
  std::vector<double> x0;
  if (opts.has("--x0")) {
    try {
      x0 = read_matrix_market_array(opts.text("--x0"));
    } catch (const Error& e) {
      throw Error(std::string("--x0: ") + e.what());
    }
    if (x0.size() != static_cast<std::size_t>(host.rows)) {
      throw UsageError("--x0 " + opts.text("--x0") + ": has " + std::to_string(x0.size()) +
                       " entries but the matrix has " + std::to_string(host.rows) + " rows");
    }
    options.use_initial_guess = true;
  }

  // Now that the row lengths are known, what the solve holds on the device, refused before any upload.
  // CG without a preconditioner or with Jacobi may run on the host (in the solver's precision) or on
  // the persistent kernel, which hold fewer vectors there.
  const CgPlacement placement =
      cg_placement(options.cg_path, context->info(), device_params(context->info()), run.precision.outer,
                   run.format.format, run.stats, host.nnz(), precond_options.kind,
                   precond_options.precision.value_or(run.precision.outer) == run.precision.outer);
  // The host backend leaves the device nothing to hold (its matrix upload is deferred, its vectors stay
  // on the host).
  if (run.backend == Location::Device)
    check_device_memory("solving " + run.matrix + " in " + run.precision.label + " with " +
                            to_string(run.refinement() ? options.inner_solver : solver_kind),
                        run.format.format,
                        solve_device_memory(host, run.format.format, run.refinement() ? SolverKind::Ir : solver_kind,
                                            run.precision.outer, options, precond_options.kind != PrecondKind::None,
                                            run.device.fp64, placement),
                        *context);

  Stopwatch upload_clock;
  // The AMG builds its hierarchy on the host: keep the host CSR there rather than read the device back.
  MatrixOptions matrix_options = with_sell_layout({}, device_params(context->info()).spmv);
  matrix_options.keep_host_copy = precond_options.kind == PrecondKind::Amg || run.backend == Location::Host;
  matrix_options.defer_upload = run.backend == Location::Host;  // the host backend computes on the host copy
  Matrix A(context, host, run.format.format, matrix_options);
  context->finish();
  run.upload_seconds = upload_clock.seconds();
  Stopwatch convert_clock;
  if (run.backend == Location::Device) {
    prepare_values(A, run.precision.outer);
    if (run.precision.inner) prepare_values(A, *run.precision.inner);
  }
  context->finish();
  run.convert_seconds = convert_clock.seconds();

  Blas blas(context, run.backend, run.precision.outer);
  std::optional<Blas> inner;
  if (run.refinement()) inner.emplace(context, run.backend, *run.precision.inner);
  run.blas = &blas;
  run.inner = inner ? &*inner : nullptr;
  // The preconditioner's setup, timed by itself (it is part of the time to solution).
  std::unique_ptr<Preconditioner> M;
  if (precond_options.kind != PrecondKind::None) {
    M = make_preconditioner(blas, A, precond_options);
    context->finish();
    run.precond = M.get();
  }
  Vector b(context, rhs.b, "b"), x(context, host.rows, "x");
  auto solve_into = [&](Vector& x_out, const SolveOptions& o) {
    if (run.refinement())
      return M ? iterative_refinement(blas, *inner, A, *M, b, x_out, o)
               : iterative_refinement(blas, *inner, A, b, x_out, o);
    return M ? solve(solver_kind, blas, A, *M, b, x_out, o) : solve(solver_kind, blas, A, b, x_out, o);
  };

  // A one-iteration warm-up builds (or loads from the cache) every kernel the solve uses and uploads
  // b, so the solve time is the iteration's alone; its counters are then discarded. It runs in x itself
  // (from zero, and x0 is put in after it): a vector of its own would be one more than
  // solve_device_memory counts, and its memory is not always given back by the time x is allocated
  // (NVIDIA runs the release callbacks later, so a CLKR_DEVICE_MEMORY_LIMIT of the estimate failed).
  Stopwatch setup_clock;
  {
    SolveOptions warm = options;
    warm.max_iterations = 1;
    warm.inner_max_iterations = 1;
    warm.use_initial_guess = false;
    warm.record_history = false;
    solve_into(x, warm);
    context->finish();
  }
  if (!x0.empty()) x.assign(x0);
  blas.reset_counters();
  if (inner) inner->reset_counters();
  if (M) {
    run.precond_setup_kernels = M->blas().counters();
    M->blas().reset_counters();
  }
  run.setup_seconds = setup_clock.seconds();
  if (report) print_preamble(out, run);

  ProgressLine progress(!quiet && stderr_is_terminal());
  if (!quiet && stderr_is_terminal()) {
    options.progress = [&](const IterationRecord& r) {
      const double rate = r.seconds > 0 ? r.iteration / r.seconds : 0;
      progress.show("iteration " + std::to_string(r.iteration) + "  residual " + number_text(r.residual) + "  " +
                    number_text(rate) + " it/s");
    };
  }
  run.result = solve_into(x, options);
  progress.clear();
  options.progress = nullptr;

  const std::vector<double> x_host = x.to_host();
  if (!rhs.x_true.empty()) run.relative_error = relative_error(x_host, rhs.x_true);
  if (opts.has("--verify")) {
    // The reference: the same Krylov method (for IR, its inner method run directly) in double on the
    // host backend, on the same matrix, b and options.
    Blas reference(context, Location::Host, Precision::Double);
    Vector b_ref(context, rhs.b, "b (reference)"), x_ref(context, host.rows, "x (reference)");
    if (!x0.empty()) x_ref.assign(x0);
    SolveOptions o = options;
    o.record_history = false;
    const SolverKind k = run.refinement() ? options.inner_solver : solver_kind;
    std::unique_ptr<Preconditioner> M_ref;
    if (M) {
      PrecondOptions reference_options = precond_options;
      reference_options.precision.reset();
      M_ref = make_preconditioner(reference, A, reference_options);
    }
    SolveResult r = M_ref ? solve(k, reference, A, *M_ref, b_ref, x_ref, o) : solve(k, reference, A, b_ref, x_ref, o);
    run.verification = Verification{k, std::move(r), max_relative_difference(x_host, x_ref.to_host())};
  }
  if (opts.has("--history")) write_history(opts.text("--history"), run.result.history);
  if (opts.has("--out-x")) write_matrix_market_array(opts.text("--out-x"), x_host);

  if (json) {
    print_json(out, run);
  } else if (quiet) {
    out << run.verdict() << " after " << run.result.iterations << " iterations, true relative residual "
        << number_text(run.result.true_relative_residual) << ", " << seconds_text(run.result.seconds) << "\n";
  } else {
    print_result(out, run, opts);
  }
  return run.result.converged() ? 0 : 1;
}

}  // namespace

int solve_command(const Args& args) {
#ifdef CLKR_WITH_MPI
  if (started_by_mpi_launcher()) return dist_solve_command("solve", args, false);
#endif
  return run_solve("solve", args, std::nullopt);
}

int cg_command(const Args& args) {
#ifdef CLKR_WITH_MPI
  if (started_by_mpi_launcher()) return dist_solve_command("cg", args, true);
#endif
  return run_solve("cg", args, SolverKind::Cg);
}

}  // namespace clkr::app
