// `clkr bench <suite>`: dispatches to the benchmark suites (cg, blas1, spmv, solve, rhs, commands).
#include <algorithm>
#include <iostream>

#include "bench_commands.hpp"

namespace clkr::app {
namespace {

struct Suite {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

const Suite suites[] = {
    {"cg", "CG time per iteration per matrix, format and precision, against Eigen, ViennaCL and the host backend",
     bench_cg_command},
    {"blas1", "AXPY, AYPX, DOT, NRM2, SCAL, COPY: GFLOP/s and GB/s against vector size", bench_blas1_command},
    {"spmv", "SpMV GFLOP/s and GB/s per matrix, format and precision", bench_spmv_command},
    {"solve", "time to a tolerance (setup + solve) per matrix and preconditioner, against Eigen and hypre",
     bench_solve_command},
    {"rhs", "K right-hand sides with CG: batched solve_many vs the column loop vs K separate solves",
     bench_rhs_command},
    {"commands", "what a launch, a wait, a pageable transfer and an allocation cost (the AMG setup's model)",
     bench_command_costs_command},
};

void print_suites(std::ostream& out) {
  out << "usage: clkr bench <suite> [options]   (clkr bench <suite> --help for its options)\n\nsuites:\n";
  std::size_t width = 0;  // the names' column: the longest name and two spaces
  for (const Suite& s : suites) width = std::max(width, std::string(s.name).size() + 2);
  for (const Suite& s : suites)
    out << "  " << s.name << std::string(width - std::string(s.name).size(), ' ') << s.summary << "\n";
  out << "\nEvery suite measures the device's copy bandwidth in the same run and reports each result's\n"
         "fraction of it; --csv FILE writes the results (columns: docs/benchmarks.md).\n";
}

}  // namespace

int bench_command(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_suites(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  for (const Suite& s : suites) {
    if (args[0] == s.name) return s.run(Args(args.begin() + 1, args.end()));
  }
  throw UsageError("unknown benchmark suite '" + args[0] + "' (expected cg, blas1, spmv, solve, rhs or commands)");
}

}  // namespace clkr::app
