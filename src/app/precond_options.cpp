// Preconditioner options of the program and their reports.
#include "precond_options.hpp"

#include <cstdio>

#include "app_common.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/precond/rigid_body_modes.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {
namespace {

// The options that only make sense for one kind, with that kind.
struct KindOption {
  const char* name;
  PrecondKind kind;
};
// One option a line (clang-format would pack a table this long into columns).
// clang-format off
const KindOption kKindOptions[] = {
    {"--amg-smoother", PrecondKind::Amg},
    {"--amg-sweeps", PrecondKind::Amg},
    {"--amg-cycle", PrecondKind::Amg},
    {"--amg-degree", PrecondKind::Amg},
    {"--amg-coarse-size", PrecondKind::Amg},
    {"--amg-strength", PrecondKind::Amg},
    {"--amg-block-size", PrecondKind::Amg},
    {"--amg-max-levels", PrecondKind::Amg},
    {"--amg-aggressive", PrecondKind::Amg},
    {"--amg-update-eigen", PrecondKind::Amg},
    {"--amg-setup", PrecondKind::Amg},
    {"--amg-block-smoothing", PrecondKind::Amg},
    {"--amg-near-null-space", PrecondKind::Amg},
    {"--amg-test-vectors", PrecondKind::Amg},
    {"--amg-test-steps", PrecondKind::Amg},
    {"--amg-strengthen", PrecondKind::Amg},
    {"--coordinates", PrecondKind::Amg},
    {"--amg-prolongator-relaxation", PrecondKind::Amg},
    {"--cheb-degree", PrecondKind::Chebyshev},
};
// clang-format on

}  // namespace

const std::vector<OptionSpec>& precond_option_specs() {
  static const std::vector<OptionSpec> specs = {
      {"--precond", "P",
       "none | jacobi | chebyshev | amg (default none; --solver pcg means jacobi):\n"
       "docs/preconditioners.md says which to use when"},
      {"--precond-precision", "P",
       "single | qdouble | double | half: the precision the preconditioner computes in\n"
       "(default the solver's; single inside a double solve halves its bytes; half:\n"
       "single on matrix values stored in binary16, a quarter of double's bytes)"},
      {"--amg-smoother", "S",
       "chebyshev | chebyshev4 (fourth kind) | jacobi | gauss-seidel (l1 hybrid, by nodes: the host backend's, "
       "bench solve's host: methods) (default chebyshev)"},
      {"--amg-sweeps", "N", "smoothing sweeps before and after the coarse correction (default 1)"},
      {"--amg-cycle", "C",
       "v | w: each level visits the next coarser once (V-cycle) or twice\n"
       "(W-cycle: fewer iterations on hard problems, more work) (default v)"},
      {"--amg-degree", "K", "Chebyshev smoother degree: SpMVs per sweep (default 3)"},
      {"--amg-coarse-size", "N", "coarsen until at most N unknowns, then solve directly (default 500)"},
      {"--amg-strength", "X", "strength-of-connection threshold (default 0.08)"},
      {"--amg-block-size", "N",
       "unknowns per mesh node, aggregated together, or auto: read from the\n"
       "sparsity pattern, nodes of different sizes too (blocks and nodes found\n"
       "move a GPU's setup to the host) (default auto)"},
      {"--amg-block-smoothing", "W",
       "on | off | auto: the smoothers scale by the inverse of each node's\n"
       "diagonal block (the unknowns of a mesh node together) instead of\n"
       "1 / diag; auto: the library's choice, on for now (default auto)"},
      {"--amg-max-levels", "N", "at most N levels (default 20)"},
      {"--amg-prolongator-relaxation", "X",
       "the prolongator smoother's damping, in [0, 2]; 0: plain (unsmoothed)\n"
       "aggregation, a cheaper setup and cycle for more iterations (default 1)"},
      {"--amg-aggressive", "N",
       "levels (from the finest) aggregated on the distance-two strength graph:\n"
       "lower operator complexity, more iterations (default 0)"},
      {"--amg-update-eigen", "N",
       "Lanczos steps per level for the smoother bounds of an update\n"
       "(default 4; 0: Gershgorin's bound; 10 or more: a fresh estimate)"},
      {"--amg-setup", "W",
       "auto | device | host: where the hierarchy is built (default auto:\n"
       "the device on GPUs, the host on CPU devices)"},
      {"--amg-near-null-space", "B",
       "constant | rigid: what the coarse levels must represent exactly: a\n"
       "constant per unknown of a node, or the rigid-body modes of the mesh\n"
       "(elasticity: translations and rotations; needs the node coordinates:\n"
       "--coordinates, or a generated mesh, elasticity3d:N) (default constant)"},
      {"--amg-test-vectors", "K",
       "smoothed test vectors: build the hierarchy, run --amg-test-steps of CG\n"
       "with it on A e = 0 from K random starts, and build it again with the\n"
       "errors left as the near-null space (adaptive aggregation; for matrices\n"
       "where AMG takes hundreds of iterations, as bcsstk25; 0: off) (default 0)"},
      {"--amg-test-steps", "N", "CG iterations per smoothed test vector (default 20)"},
      {"--amg-strengthen", "K",
       "when CG forecasts a long solve (--strengthen-check), rebuild the hierarchy\n"
       "on K smoothed test vectors with an aggressive first level, where the\n"
       "forecast saving exceeds the cost, and restart (0: never) (default 6)"},
      {"--coordinates", "FILE",
       "the mesh's node coordinates for --amg-near-null-space rigid: a Matrix\n"
       "Market array, a row per node (2 or 3 columns), nodes in the matrix's\n"
       "order, each node's unknowns consecutive (its displacements, then any\n"
       "rotations)"},
      {"--cheb-degree", "K", "Chebyshev preconditioner degree: SpMVs per application (default 4)"},
  };
  return specs;
}

bool has_precond_options(const ParsedArgs& opts) {
  for (const OptionSpec& spec : precond_option_specs())
    if (opts.has(spec.name)) return true;
  return false;
}

PrecondOptions parse_precond_options(const ParsedArgs& opts, bool solver_is_pcg) {
  PrecondOptions o;
  if (opts.has("--precond")) {
    try {
      o.kind = parse_precond(opts.text("--precond"));
    } catch (const Error& e) {
      throw UsageError(std::string("--precond: ") + e.what());
    }
    if (solver_is_pcg && o.kind != PrecondKind::Jacobi)
      throw UsageError("--solver pcg is CG with --precond jacobi; for --precond " + opts.text("--precond") +
                       " use --solver cg");
  } else if (solver_is_pcg) {
    o.kind = PrecondKind::Jacobi;
  }
  for (const KindOption& option : kKindOptions)
    if (opts.has(option.name) && o.kind != option.kind)
      throw UsageError(std::string(option.name) + " applies to --precond " + to_string(option.kind) + " only");
  if (opts.has("--precond-precision")) {
    if (o.kind == PrecondKind::None) throw UsageError("--precond-precision needs a --precond");
    try {
      set_precond_precision(o, opts.text("--precond-precision"));
    } catch (const Error&) {
      throw UsageError("--precond-precision: unknown precision '" + opts.text("--precond-precision") +
                       "' (expected one of: single, qdouble, double, half)");
    }
  }
  parse_tuning_options(opts, o);
  return o;
}

void parse_tuning_options(const ParsedArgs& opts, PrecondOptions& o) {
  AmgOptions& amg = o.amg;
  if (opts.has("--amg-smoother")) {
    try {
      amg.smoother = parse_amg_smoother(opts.text("--amg-smoother"));
    } catch (const Error& e) {
      throw UsageError(std::string("--amg-smoother: ") + e.what());
    }
  }
  amg.pre_sweeps = amg.post_sweeps = static_cast<int>(opts.integer("--amg-sweeps", 1, 0, 100));
  if (opts.has("--amg-cycle")) {
    try {
      amg.cycle_index = parse_amg_cycle(opts.text("--amg-cycle"));
    } catch (const Error& e) {
      throw UsageError("--amg-cycle " + opts.text("--amg-cycle") + ": " + e.what());
    }
  }
  amg.chebyshev_degree = static_cast<int>(opts.integer("--amg-degree", amg.chebyshev_degree, 1, 100));
  amg.coarse_size = static_cast<std::int32_t>(opts.integer("--amg-coarse-size", amg.coarse_size, 1, 4000));
  amg.strength_threshold = opts.number("--amg-strength", amg.strength_threshold, 0);
  if (amg.strength_threshold >= 1) throw UsageError("--amg-strength " + opts.text("--amg-strength") + ": must be < 1");
  // The program reads the block size from the pattern unless told (the library's default is 1).
  if (!opts.has("--amg-block-size") || opts.text("--amg-block-size") == "auto") {
    amg.block_size = 0;
  } else {
    amg.block_size = static_cast<int>(opts.integer("--amg-block-size", 1, 1, 64));
  }
  amg.max_levels = static_cast<int>(opts.integer("--amg-max-levels", amg.max_levels, 1, 100));
  amg.prolongator_relaxation = opts.number("--amg-prolongator-relaxation", amg.prolongator_relaxation, 0);
  if (amg.prolongator_relaxation > 2)
    throw UsageError("--amg-prolongator-relaxation " + opts.text("--amg-prolongator-relaxation") +
                     ": must lie in [0, 2]");
  amg.aggressive_levels = static_cast<int>(opts.integer("--amg-aggressive", amg.aggressive_levels, 0, 100));
  if (opts.has("--amg-block-smoothing")) {
    try {
      amg.block_smoothing = parse_amg_block_smoothing(opts.text("--amg-block-smoothing"));
    } catch (const Error& e) {
      throw UsageError(std::string("--amg-block-smoothing: ") + e.what());
    }
  }
  const int update_eigen = static_cast<int>(opts.integer("--amg-update-eigen", amg.update_eigen_iterations, 0, 1000));
  if (update_eigen == 1) throw UsageError("--amg-update-eigen 1: must be 0 (Gershgorin) or at least 2");
  amg.update_eigen_iterations = update_eigen;
  const std::string near_null = opts.text("--amg-near-null-space", "constant");
  if (near_null != "constant" && near_null != "rigid")
    throw UsageError("--amg-near-null-space: expected constant or rigid, not '" + near_null + "'");
  amg.test_vectors =
      static_cast<int>(opts.integer("--amg-test-vectors", amg.test_vectors, 0, AmgOptions::kMaxTestVectors));
  amg.strengthen_test_vectors =
      static_cast<int>(opts.integer("--amg-strengthen", amg.strengthen_test_vectors, 0, AmgOptions::kMaxTestVectors));
  amg.test_vector_steps = static_cast<int>(opts.integer("--amg-test-steps", amg.test_vector_steps, 1, 10000));
  if (opts.has("--amg-test-steps") && amg.test_vectors == 0 && amg.strengthen_test_vectors == 0)
    throw UsageError("--amg-test-steps applies with --amg-test-vectors K > 0 or --amg-strengthen K > 0 only");
  if (opts.has("--coordinates") && near_null != "rigid")
    throw UsageError("--coordinates is read for --amg-near-null-space rigid only");
  if (opts.has("--amg-setup")) {
    try {
      amg.setup_on = parse_amg_setup_on(opts.text("--amg-setup"));
    } catch (const Error& e) {
      throw UsageError(std::string("--amg-setup: ") + e.what());
    }
  }
  o.chebyshev.degree = static_cast<int>(opts.integer("--cheb-degree", o.chebyshev.degree, 1, 100));
}

std::string phases_text(const PhaseTimes& phases) {
  std::string text;
  for (const auto& [phase, seconds] : phases) text += (text.empty() ? "" : ", ") + phase + " " + seconds_text(seconds);
  return text;
}

std::string commands_text(const PhaseCommands& phases) {
  CommandCounts c;
  for (const auto& [phase, counts] : phases) c += counts;
  return std::to_string(c.launches) + " launches, " + std::to_string(c.waits) + " waits (" +
         seconds_text(static_cast<double>(c.wait_nanoseconds) * 1e-9) + "), " + std::to_string(c.reads) + " reads (" +
         bytes_text(static_cast<double>(c.read_bytes)) + "), " + std::to_string(c.writes) + " writes (" +
         bytes_text(static_cast<double>(c.write_bytes)) + "), " + std::to_string(c.allocations) + " allocations (" +
         bytes_text(static_cast<double>(c.allocated_bytes)) + ", " +
         seconds_text(static_cast<double>(c.allocation_nanoseconds) * 1e-9) + ")";
}

namespace {

void write_commands_json(JsonWriter& json, const char* key, const PhaseCommands& phases) {
  json.key(key).begin_object();
  for (const auto& [phase, c] : phases) {
    json.key(phase).begin_object();
    json.member("launches", c.launches)
        .member("waits", c.waits)
        .member("reads", c.reads)
        .member("read_bytes", c.read_bytes)
        .member("writes", c.writes)
        .member("write_bytes", c.write_bytes)
        .member("fills", c.fills)
        .member("copies", c.copies)
        .member("allocations", c.allocations)
        .member("allocated_bytes", c.allocated_bytes)
        .member("wait_seconds", static_cast<double>(c.wait_nanoseconds) * 1e-9)
        .member("allocation_seconds", static_cast<double>(c.allocation_nanoseconds) * 1e-9);
    json.end_object();
  }
  json.end_object();
}

}  // namespace

void set_near_null_space(const ParsedArgs& opts, const std::string& matrix, std::int32_t rows, PrecondOptions& o) {
  if (opts.text("--amg-near-null-space", "constant") != "rigid") return;
  MeshCoordinates mesh;
  if (opts.has("--coordinates")) {
    const std::string file = opts.text("--coordinates");
    HostCsrMatrix table;
    try {
      table = read_matrix_market(file);
    } catch (const Error& e) {
      throw Error("--coordinates: " + std::string(e.what()));
    }
    if (table.cols != 2 && table.cols != 3)
      throw UsageError("--coordinates " + file + ": " + std::to_string(table.cols) +
                       " columns, expected 2 or 3 (x, y[, z] of a node a row)");
    mesh.dimension = table.cols;
    mesh.values.assign(static_cast<std::size_t>(table.rows) * table.cols, 0.0);
    for (std::int32_t node = 0; node < table.rows; ++node)
      for (std::int64_t k = table.row_offsets[node]; k < table.row_offsets[node + 1]; ++k)
        mesh.values[static_cast<std::size_t>(node) * table.cols + table.col_indices[k]] = table.values[k];
  } else {
    mesh = generator_coordinates(matrix);
    if (mesh.dimension == 0)
      throw UsageError(
          "--amg-near-null-space rigid needs the mesh's node coordinates: --coordinates FILE, or a "
          "generated mesh (elasticity3d:N); " +
          matrix + " has none");
  }
  const auto nodes = static_cast<std::int64_t>(mesh.values.size() / mesh.dimension);
  if (nodes == 0 || rows % nodes != 0)
    throw UsageError("--amg-near-null-space rigid: " + std::to_string(nodes) + " nodes, but the matrix's " +
                     std::to_string(rows) + " rows are not a whole number of unknowns per node");
  const int unknowns = static_cast<int>(rows / nodes);
  try {
    o.amg.near_null_space = rigid_body_modes(mesh.values, mesh.dimension, unknowns);
  } catch (const Error& e) {
    throw UsageError("--amg-near-null-space rigid: " + std::string(e.what()));
  }
  // The modes number the unknowns node by node: nodes of `unknowns` rows, whatever the pattern says.
  if (o.amg.block_size != 0 && o.amg.block_size != unknowns)
    throw UsageError("--amg-block-size " + std::to_string(o.amg.block_size) + " does not match the " +
                     std::to_string(unknowns) + " unknowns per node of --amg-near-null-space rigid");
  o.amg.block_size = unknowns;
}

void print_precond(std::ostream& out, const Preconditioner& M) {
  out << "precond     " << M.description() << "\n"
      << "setup       " << seconds_text(M.setup_seconds());
  if (!M.setup_phases().empty()) out << " (" << phases_text(M.setup_phases()) << ")";
  out << "\n";
  const auto* amg = dynamic_cast<const Amg*>(&M);
  if (!amg) return;
  out << "built on    the " << amg->setup_location();
  if (!amg->setup_note().empty()) out << " (" << amg->setup_note() << ")";
  out << "\n";
  out << "commands    " << commands_text(amg->setup_commands()) << " in the setup\n";
  char line[160];
  std::snprintf(line, sizeof line, "levels      %5s %12s %14s %12s %10s  %-14s %s\n", "level", "rows", "nnz", "P nnz",
                "lambda_max", "format", "values");
  out << line;
  for (std::size_t l = 0; l < amg->levels().size(); ++l) {
    const AmgLevelInfo& level = amg->levels()[l];
    std::snprintf(line, sizeof line, "            %5zu %12lld %14lld %12lld %10.4g  %-14s %s\n", l,
                  static_cast<long long>(level.rows), static_cast<long long>(level.nnz),
                  static_cast<long long>(level.prolongator_nnz), level.lambda_max, level.format.c_str(),
                  level.values.c_str());
    out << line;
  }
  out << "complexity  operator " << number_text(amg->operator_complexity()) << ", grid "
      << number_text(amg->grid_complexity()) << "\n";
}

void write_precond_json(JsonWriter& json, const Preconditioner& M) {
  json.key("preconditioner").begin_object();
  json.member("kind", to_string(M.kind()))
      .member("description", M.description())
      .member("precision", to_string(M.precision()))
      .member("matrix_values", to_string(M.matrix_values()))
      .member("setup_seconds", M.setup_seconds())
      .member("applications", static_cast<std::uint64_t>(M.applications()));
  json.key("setup_phases").begin_object();
  for (const auto& [phase, seconds] : M.setup_phases()) json.member(phase, seconds);
  json.end_object();
  if (const auto* amg = dynamic_cast<const Amg*>(&M)) {
    json.member("operator_complexity", amg->operator_complexity()).member("grid_complexity", amg->grid_complexity());
    json.member("setup_on", amg->setup_location()).member("setup_note", amg->setup_note());
    write_commands_json(json, "setup_commands", amg->setup_commands());
    json.key("levels").begin_array();
    for (const AmgLevelInfo& level : amg->levels()) {
      json.begin_object()
          .member("rows", level.rows)
          .member("nnz", level.nnz)
          .member("prolongator_nnz", level.prolongator_nnz)
          .member("lambda_max", level.lambda_max)
          .member("format", level.format)
          .member("values", level.values)
          .end_object();
    }
    json.end_array();
  }
  json.end_object();
}

}  // namespace clkr::app
