// The preconditioner options of `clkr solve` and `clkr bench solve` (--precond, --precond-precision,
// --amg-*, --cheb-*): their help, their parsing into PrecondOptions, and how a built preconditioner is
// reported (setup time by phase, the AMG levels) as text and as JSON.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "json_writer.hpp"

namespace clkr::app {

const std::vector<OptionSpec>& precond_option_specs();

// The options as given; `solver_is_pcg` (--solver pcg) means --precond jacobi, and refuses another
// --precond. Throws UsageError naming the option for a bad value or an option that does not apply
// (an --amg-* option without --precond amg).
PrecondOptions parse_precond_options(const ParsedArgs& opts, bool solver_is_pcg);

// The --amg-* and --cheb-* values into `options` (whatever its kind); throws UsageError for a bad value.
void parse_tuning_options(const ParsedArgs& opts, PrecondOptions& options);

// --amg-near-null-space rigid: the rigid-body modes of `matrix`'s mesh (--coordinates, or the
// generator's own: elasticity3d) into o.amg.near_null_space, and the unknowns per node (the matrix's
// rows over the nodes) into o.amg.block_size; nothing for constant. Throws UsageError when there are
// no coordinates, the rows are not a whole number of unknowns per node, or --amg-block-size disagrees.
void set_near_null_space(const ParsedArgs& opts, const std::string& matrix, std::int32_t rows, PrecondOptions& o);

// Whether any preconditioner option was given (iterative refinement refuses them).
bool has_precond_options(const ParsedArgs& opts);

// "setup ... s (phase s, ...)" and, for AMG, one line per level.
void print_precond(std::ostream& out, const Preconditioner& M);
// "strength of connection 416 ms, aggregation 185 ms, ...": a setup's or update's phases in one line.
std::string phases_text(const PhaseTimes& phases);
// The commands of all phases together: "412 launches, 96 waits, 57 reads (1.2 MB), ...".
std::string commands_text(const PhaseCommands& phases);
// "preconditioner": {kind, description, precision, setup_seconds, setup_phases, applications,
// levels, operator_complexity, grid_complexity}, as a member of the current object.
void write_precond_json(JsonWriter& json, const Preconditioner& M);

}  // namespace clkr::app
