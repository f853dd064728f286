// `clkr convert IN OUT`: reads a matrix (a Matrix Market file or a generator spec such as
// poisson3d:32) and writes it as a Matrix Market file, in general or symmetric storage.
#include <iostream>

#include "app_common.hpp"
#include "cli_options.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "commands.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> convert_specs = {
    {"--symmetric", nullptr,
     "write `symmetric` storage (the lower triangle); refused unless the matrix is\n"
     "square and numerically symmetric"},
};

}  // namespace

int convert_command(const Args& args) {
  const ParsedArgs opts("convert", convert_specs, args);
  if (opts.has("--help")) {
    print_usage(std::cout, "convert IN OUT.mtx [--symmetric]",
                "Writes the matrix IN (a .mtx/.mtx.gz file, poisson2d:N or poisson3d:N) to OUT.mtx in Matrix\n"
                "Market `coordinate real` format; values are written so they read back exactly.",
                convert_specs);
    return 0;
  }
  if (opts.positional().size() != 2) {
    throw UsageError("expected IN and OUT, got " + std::to_string(opts.positional().size()) + " argument" +
                     (opts.positional().size() == 1 ? "" : "s"));
  }
  const std::string& in = opts.positional()[0];
  const std::string& out = opts.positional()[1];
  const HostCsrMatrix A = load_matrix(in);
  const bool symmetric = opts.has("--symmetric");
  write_matrix_market(out, A, symmetric);
  std::cout << "wrote " << out << ": " << A.rows << " x " << A.cols << ", nnz " << A.nnz() << ", "
            << (symmetric ? "symmetric (lower triangle stored)" : "general") << "\n";
  return 0;
}

}  // namespace clkr::app
