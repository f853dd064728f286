// plan_solver: a SolverChoice (names, numbers, "key=value" settings) checked into a SolverPlan, with
// one table of settings shared by the C API, the Fortran module and the Python module, so that every
// interface offers the same preconditioner and refinement options under the same names.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "../runtime/text.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solver_setup.hpp"

namespace clkr {
namespace {

// What a setting needs to apply: a preconditioner of one kind, any preconditioner, iterative
// refinement (precision "mixed"), or a CG (the solver, or refinement's inner solver).
enum class Needs { Amg, Chebyshev, Preconditioner, Refinement, Cg };

struct SettingSpec {
  const char* key;
  const char* meaning;
  Needs needs;
  std::function<void(SolverPlan&, const std::string&)> set;
};

long long integer_value(const std::string& key, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < INT_MIN || value > INT_MAX)
    throw Error(key + "=" + text + ": not an integer");
  return value;
}

double number_value(const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value)) throw Error(key + "=" + text + ": not a finite number");
  return value;
}

bool bool_value(const std::string& key, const std::string& text) {
  const std::string t = detail::to_lower(text);
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  throw Error(key + "=" + text + ": not a boolean (true or false)");
}

// Setters for the field types of the options.
template <class Field>
std::function<void(SolverPlan&, const std::string&)> integer(const char* key, Field field) {
  return [key, field](SolverPlan& p, const std::string& v) { field(p) = static_cast<int>(integer_value(key, v)); };
}
template <class Field>
std::function<void(SolverPlan&, const std::string&)> number(const char* key, Field field) {
  return [key, field](SolverPlan& p, const std::string& v) { field(p) = number_value(key, v); };
}
// A name parsed by `parse` (whose error lists the accepted names).
template <class Field, class Parse>
std::function<void(SolverPlan&, const std::string&)> named(const char* key, Field field, Parse parse) {
  return [key, field, parse](SolverPlan& p, const std::string& v) {
    try {
      field(p) = parse(v);
    } catch (const Error& e) {
      throw Error(std::string(key) + ": " + e.what());
    }
  };
}

#define CLKR_FIELD(expression) \
  [](SolverPlan & p) -> auto& { return expression; }

const std::vector<SettingSpec>& setting_specs() {
  static const std::vector<SettingSpec> specs = {
      {"amg.strength_threshold", "strength-of-connection threshold (0.08)", Needs::Amg,
       number("amg.strength_threshold", CLKR_FIELD(p.precond.amg.strength_threshold))},
      {"amg.coarse_size", "coarsen until at most this many rows, then solve directly (500)", Needs::Amg,
       integer("amg.coarse_size", CLKR_FIELD(p.precond.amg.coarse_size))},
      {"amg.max_levels", "at most this many levels (20)", Needs::Amg,
       integer("amg.max_levels", CLKR_FIELD(p.precond.amg.max_levels))},
      {"amg.prolongator_relaxation", "the prolongator smoother's damping factor; 0: plain aggregation (1)", Needs::Amg,
       number("amg.prolongator_relaxation", CLKR_FIELD(p.precond.amg.prolongator_relaxation))},
      {"amg.block_size", "unknowns per mesh node, aggregated together; 0: read from the pattern (1)", Needs::Amg,
       integer("amg.block_size", CLKR_FIELD(p.precond.amg.block_size))},
      {"amg.aggressive_levels", "levels (from the finest) aggregated on the distance-two strength graph (0)",
       Needs::Amg, integer("amg.aggressive_levels", CLKR_FIELD(p.precond.amg.aggressive_levels))},
      {"amg.test_vectors", "smoothed test vectors as the near-null space, built from a first hierarchy; 0: off (0)",
       Needs::Amg, integer("amg.test_vectors", CLKR_FIELD(p.precond.amg.test_vectors))},
      {"amg.test_vector_steps", "CG iterations per smoothed test vector (20)", Needs::Amg,
       integer("amg.test_vector_steps", CLKR_FIELD(p.precond.amg.test_vector_steps))},
      {"amg.strengthen_test_vectors",
       "test vectors to rebuild on when CG asks the hierarchy to strengthen itself; 0: never (6)", Needs::Amg,
       integer("amg.strengthen_test_vectors", CLKR_FIELD(p.precond.amg.strengthen_test_vectors))},
      {"amg.smoother",
       "chebyshev, chebyshev4 (fourth kind), jacobi, or gauss-seidel (l1 hybrid, the host backend only) (chebyshev)",
       Needs::Amg,
       named("amg.smoother", CLKR_FIELD(p.precond.amg.smoother), parse_amg_smoother)},
      {"amg.sweeps", "smoothing sweeps before and after the coarse correction (1)", Needs::Amg,
       [](SolverPlan& p, const std::string& v) {
         p.precond.amg.pre_sweeps = p.precond.amg.post_sweeps = static_cast<int>(integer_value("amg.sweeps", v));
       }},
      {"amg.cycle", "v (a V-cycle) or w (a W-cycle: each level visits the next coarser twice) (v)", Needs::Amg,
       [](SolverPlan& p, const std::string& v) {
         try {
           p.precond.amg.cycle_index = parse_amg_cycle(detail::to_lower(v));
         } catch (const Error& e) {
           throw Error("amg.cycle=" + v + ": " + e.what());
         }
       }},
      {"amg.pre_sweeps", "smoothing sweeps before the coarse correction (1)", Needs::Amg,
       integer("amg.pre_sweeps", CLKR_FIELD(p.precond.amg.pre_sweeps))},
      {"amg.post_sweeps", "smoothing sweeps after the coarse correction (1)", Needs::Amg,
       integer("amg.post_sweeps", CLKR_FIELD(p.precond.amg.post_sweeps))},
      {"amg.chebyshev_degree", "the Chebyshev smoother's degree (3)", Needs::Amg,
       integer("amg.chebyshev_degree", CLKR_FIELD(p.precond.amg.chebyshev_degree))},
      {"amg.chebyshev_lower_ratio", "the Chebyshev smoother's interval, lower / upper (1/30)", Needs::Amg,
       number("amg.chebyshev_lower_ratio", CLKR_FIELD(p.precond.amg.chebyshev_lower_ratio))},
      {"amg.jacobi_weight", "the Jacobi smoother's damping; 0: 4 / (3 lambda_max) (0)", Needs::Amg,
       number("amg.jacobi_weight", CLKR_FIELD(p.precond.amg.jacobi_weight))},
      {"amg.eigen_iterations", "Lanczos steps per level for lambda_max; 0: Gershgorin's bound (10)", Needs::Amg,
       integer("amg.eigen_iterations", CLKR_FIELD(p.precond.amg.eigen_iterations))},
      {"amg.update_eigen_iterations",
       "Lanczos steps per level for the smoother bounds of an update; 0: Gershgorin's bound (4)", Needs::Amg,
       integer("amg.update_eigen_iterations", CLKR_FIELD(p.precond.amg.update_eigen_iterations))},
      {"amg.block_smoothing",
       "auto, true or false: smoothers scale by the inverse node blocks instead of 1 / diag (auto: on)", Needs::Amg,
       [](SolverPlan& p, const std::string& v) {
         try {
           p.precond.amg.block_smoothing = parse_amg_block_smoothing(detail::to_lower(v));
         } catch (const Error& e) {
           throw Error("amg.block_smoothing=" + v + ": " + e.what());
         }
       }},
      {"amg.update_prolongator", "an update re-smooths the prolongators too (false)", Needs::Amg,
       [](SolverPlan& p, const std::string& v) {
         p.precond.amg.update_prolongator = bool_value("amg.update_prolongator", v);
       }},
      {"chebyshev.degree", "SpMVs per application (4)", Needs::Chebyshev,
       integer("chebyshev.degree", CLKR_FIELD(p.precond.chebyshev.degree))},
      {"chebyshev.eigen_iterations", "Lanczos steps for the spectrum; 0: Gershgorin's bound (20)", Needs::Chebyshev,
       integer("chebyshev.eigen_iterations", CLKR_FIELD(p.precond.chebyshev.eigen_iterations))},
      {"chebyshev.upper_safety", "the interval's top, times the largest Ritz value (1.1)", Needs::Chebyshev,
       number("chebyshev.upper_safety", CLKR_FIELD(p.precond.chebyshev.upper_safety))},
      {"chebyshev.lower_ratio", "the interval's bottom over its top; 0: the smallest Ritz value (0)", Needs::Chebyshev,
       number("chebyshev.lower_ratio", CLKR_FIELD(p.precond.chebyshev.lower_ratio))},
      {"precond.precision",
       "single, qdouble, double, or half (single on binary16 matrix values): the preconditioner's own precision "
       "(the solver's)",
       Needs::Preconditioner,
       [](SolverPlan& p, const std::string& v) {
         try {
           set_precond_precision(p.precond, v);
         } catch (const Error& e) {
           throw Error(std::string("precond.precision: ") + e.what());
         }
       }},
      {"refinement.scheme", "auto, restarted or reliable (auto: reliable for CG, else restarted)", Needs::Refinement,
       named("refinement.scheme", CLKR_FIELD(p.options.refinement), parse_refinement)},
      {"refinement.inner_tolerance", "restarted: each inner solve's relative tolerance (1e-4)", Needs::Refinement,
       number("refinement.inner_tolerance", CLKR_FIELD(p.options.inner_relative_tolerance))},
      {"refinement.inner_max_iterations", "inner iterations per outer step at most (10000)", Needs::Refinement,
       integer("refinement.inner_max_iterations", CLKR_FIELD(p.options.inner_max_iterations))},
      {"refinement.reliable_update_delta", "reliable: the inner residual's drop between updates (0.1)",
       Needs::Refinement, number("refinement.reliable_update_delta", CLKR_FIELD(p.options.reliable_update_delta))},
      {"cg.path", "auto, persistent, fused or unfused: how CG runs on a device (auto)", Needs::Cg,
       named("cg.path", CLKR_FIELD(p.options.cg_path), parse_cg_path)},
      {"cg.strengthen_check",
       "CG forecasts its iterations at N, 2N, ... and asks its preconditioner to strengthen itself; 0: never (100)",
       Needs::Cg, integer("cg.strengthen_check", CLKR_FIELD(p.options.strengthen_check))},
  };
  return specs;
}

#undef CLKR_FIELD

// Why a setting that needs `needs` does not apply to `plan` ("" when it does).
std::string not_applicable(Needs needs, const SolverPlan& plan) {
  const PrecondKind kind = plan.precond.kind;
  const bool refinement = plan.kind == SolverKind::Ir;
  switch (needs) {
    case Needs::Amg:
      return kind == PrecondKind::Amg ? "" : "applies to the preconditioner 'amg' only";
    case Needs::Chebyshev:
      return kind == PrecondKind::Chebyshev ? "" : "applies to the preconditioner 'chebyshev' only";
    case Needs::Preconditioner:
      return kind != PrecondKind::None ? "" : "needs a preconditioner";
    case Needs::Refinement:
      return refinement ? "" : "applies to precision 'mixed' (iterative refinement) only";
    case Needs::Cg:
      return plan.kind == SolverKind::Cg || (refinement && plan.options.inner_solver == SolverKind::Cg)
                 ? ""
                 : "applies to the solver 'cg' only";
  }
  return "";
}

void apply_settings(SolverPlan& plan, const std::vector<Setting>& settings, const std::string& field) {
  for (const auto& [key, value] : settings) {
    const auto& specs = setting_specs();
    // Named copy: C++17 lambdas cannot capture a structured binding (clang refuses it; GCC allows it).
    const std::string& wanted = key;
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const SettingSpec& s) { return wanted == s.key; });
    if (spec == specs.end()) {
      std::string known;
      for (const SettingSpec& s : specs) known += (known.empty() ? "" : ", ") + std::string(s.key);
      throw Error(field + ": unknown key '" + key + "' (known: " + known + ")");
    }
    const std::string why = not_applicable(spec->needs, plan);
    if (!why.empty()) throw Error(field + ": " + key + " " + why);
    try {
      spec->set(plan, value);
    } catch (const Error& e) {
      throw Error(field + ": " + e.what());
    }
  }
}

// `text` parsed by `parse`, its error prefixed with the field's name.
template <class Parse>
auto parse_field(const std::string& field, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throw Error(field + ": " + e.what());
  }
}

}  // namespace

std::vector<Setting> parse_settings(const std::string& text) {
  std::vector<Setting> settings;
  std::size_t at = 0;
  const char* separators = ",; \t\n";
  while ((at = text.find_first_not_of(separators, at)) != std::string::npos) {
    const std::size_t end = std::min(text.find_first_of(separators, at), text.size());
    const std::string pair = text.substr(at, end - at);
    const std::size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0)
      throw Error("'" + pair + "' is not a key=value pair (e.g. amg.coarse_size=100)");
    settings.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
    at = end;
  }
  return settings;
}

std::vector<std::string> solver_setting_keys() {
  std::vector<std::string> keys;
  for (const SettingSpec& s : setting_specs()) keys.push_back(std::string(s.key) + ": " + s.meaning);
  return keys;
}

SolverPlan plan_solver(const SolverChoice& choice, const DeviceInfo& device, const std::string& field_prefix) {
  SolverPlan plan;
  const std::string solver_field = field_prefix + "solver";
  const SolverKind kind = parse_field(solver_field, choice.solver, parse_solver);
  if (kind == SolverKind::Ir)
    throw Error(solver_field +
                ": 'ir' is not a solver here; iterative refinement is the precision 'mixed' (solvers: cg, pcg, "
                "gmres, fgmres, bicgstab)");
  const PrecondKind precond = parse_field(field_prefix + "preconditioner", choice.preconditioner, parse_precond);
  plan.backend = parse_field(field_prefix + "backend", choice.backend, parse_backend);
  const bool mixed = detail::to_lower(choice.precision) == "mixed";
  if (mixed) {
    // The preconditioner works inside, in the inner precision (below); "pcg" inside is CG with its own
    // Jacobi, so it takes no other.
    if (kind == SolverKind::Pcg && precond != PrecondKind::None)
      throw Error(solver_field + " 'pcg' is CG with Jacobi; for the preconditioner '" + to_string(precond) +
                  "' in precision 'mixed' use the solver 'cg'");
    plan.precond.kind = precond;
    plan.kind = SolverKind::Ir;
    // The host backend computes in double on any device.
    plan.precision = device.fp64 || plan.backend == Location::Host ? Precision::Double : Precision::QuasiDouble;
    plan.options.inner_precision = Precision::Single;
    plan.options.inner_solver = kind;
  } else {
    // auto: double wherever it is computed, quasi-double on a device without fp64 (as `clkr solve`).
    const bool doubles = device.fp64 || plan.backend == Location::Host;
    plan.precision = parse_field(field_prefix + "precision", choice.precision, [doubles](const std::string& text) {
      if (detail::to_lower(text) == "auto") return doubles ? Precision::Double : Precision::QuasiDouble;
      try {
        return parse_precision(text);
      } catch (const Error&) {
        throw Error("unknown precision '" + text + "' (expected one of: auto, single, qdouble, double, mixed)");
      }
    });
    plan.precond.kind = precond;
    if (kind == SolverKind::Pcg) {  // CG with Jacobi, as in the `clkr` program
      if (precond != PrecondKind::None && precond != PrecondKind::Jacobi)
        throw Error(solver_field + " 'pcg' is CG with Jacobi; for the preconditioner '" + to_string(precond) +
                    "' use the solver 'cg'");
      plan.precond.kind = PrecondKind::Jacobi;
    }
    plan.kind = kind == SolverKind::Pcg ? SolverKind::Cg : kind;
  }
  if (!(choice.relative_tolerance > 0 && choice.relative_tolerance < 1))
    throw Error(field_prefix + "relative_tolerance " + std::to_string(choice.relative_tolerance) +
                " must lie in (0, 1)");
  if (choice.max_iterations < 1)
    throw Error(field_prefix + "max_iterations " + std::to_string(choice.max_iterations) + " must be at least 1");
  if (choice.restart < 1)
    throw Error(field_prefix + "restart " + std::to_string(choice.restart) + " must be at least 1");
  plan.options.relative_tolerance = choice.relative_tolerance;
  plan.options.max_iterations = choice.max_iterations;
  plan.options.restart = choice.restart;
  apply_settings(plan, choice.settings, field_prefix + "settings");
  if (plan.backend == Location::Host)
    for (const auto& setting : choice.settings)
      if (setting.first == "cg.path")
        throw Error(field_prefix +
                    "settings: cg.path chooses how CG runs on a device; it does not apply to backend "
                    "'host'");
  if (mixed && resolved_refinement(plan.options) == RefinementScheme::ReliableUpdate &&
      plan.options.inner_solver != SolverKind::Cg)
    throw Error(field_prefix + "settings: refinement.scheme=reliable runs CG inside, not " +
                to_string(plan.options.inner_solver) + " (use refinement.scheme=restarted)");
  if (mixed && plan.precond.kind != PrecondKind::None) {
    // The inner iterations apply M: it computes in their precision (single, or on binary16 values).
    if (!plan.precond.precision) plan.precond.precision = plan.options.inner_precision;
    if (*plan.precond.precision != plan.options.inner_precision)
      throw Error(field_prefix + "settings: precond.precision " + to_string(*plan.precond.precision) +
                  " does not apply to precision 'mixed', whose preconditioner works in the inner precision, " +
                  to_string(plan.options.inner_precision) + " (or half)");
  }
  if (!choice.near_null_space.empty()) {
    if (plan.precond.kind != PrecondKind::Amg)
      throw Error(field_prefix + "near_null_space applies to the preconditioner 'amg' only");
    plan.precond.amg.near_null_space = choice.near_null_space;
  }
  if (!choice.node_offsets.empty()) {
    if (plan.precond.kind != PrecondKind::Amg)
      throw Error(field_prefix + "node_offsets applies to the preconditioner 'amg' only");
    plan.precond.amg.node_offsets = choice.node_offsets;
  }
  return plan;
}

}  // namespace clkr
