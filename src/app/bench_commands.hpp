// The `clkr bench` suites, one function each; `bench_command` dispatches `clkr bench <suite>`.
#pragma once

#include "commands.hpp"

namespace clkr::app {

int bench_cg_command(const Args& args);             // clkr bench cg: CG per matrix/format/precision vs references
int bench_blas1_command(const Args& args);          // clkr bench blas1: each BLAS1 operation vs vector size
int bench_spmv_command(const Args& args);           // clkr bench spmv: SpMV per matrix/format/precision
int bench_solve_command(const Args& args);          // clkr bench solve: time to a tolerance, with peers
int bench_rhs_command(const Args& args);            // clkr bench rhs: K right-hand sides, batched CG vs loops
int bench_command_costs_command(const Args& args);  // clkr bench commands: launches, waits, transfers, allocations

}  // namespace clkr::app
