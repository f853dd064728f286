// `mpirun -np N clkr bench cg MATRIX...`: the time per iteration of the distributed CG (each variant,
// each precision) over a fixed number of iterations, the slowest rank's, with the share of it spent
// communicating and the halo bytes per iteration: the numbers strong and weak scaling are judged by.
#include <algorithm>
#include <iostream>
#include <optional>

#include "../bench_common.hpp"
#include "../cli_options.hpp"
#include "clkr/dist/dist_solve.hpp"
#include "dist_commands.hpp"
#include "dist_problem.hpp"

namespace clkr::app {
namespace {

const std::vector<OptionSpec> kSpecs = {
    {"--iterations", "N", "CG iterations per solve (tolerance 0: exactly N) (default 200)"},
    {"--reps", "N", "timed repetitions of each configuration, after one warm-up solve (default 3)"},
    {"--precisions", "LIST", "single,qdouble,double (default: double, qdouble where a rank lacks fp64)"},
    {"--variants", "LIST", "classic,single-reduction,pipelined (default all three)"},
    {"--format", "NAME", "csr | csr4 | ell | hyb | auto: each rank's local block (default auto)"},
    {"--partition", "P", "uniform | balanced (as for clkr solve)"},
    {"--device", "SEL", "each rank's device, %r = global rank, %l = node-local rank (as for clkr solve)"},
    {"--csv", "FILE", "rank 0 writes one CSV row per configuration"},
};

struct Measured {
  Spread per_iteration;                 // the slowest rank's seconds per iteration, over the repetitions
  double communication_share = 0;       // of the slowest rank's time, the part in halo exchanges and allreduces
  double halo_bytes_per_iteration = 0;  // sent by all ranks together
  double allreduces_per_iteration = 0;
  int iterations = 0;
};

// One configuration: reps timed solves of exactly `iterations` iterations; every rank takes part.
Measured measure(Communicator& comm, DistSetup& setup, Precision p, DistCgVariant variant, int iterations, int reps) {
  DistMatrix& A = *setup.A;
  DistBlas blas(setup.context, setup.A->communicator(), p);
  DistVector b(setup.context, A.communicator(), A.partition(), std::vector<double>(A.local_rows(), 1.0), "b");
  DistSolveOptions o;
  o.cg_variant = variant;
  o.solve.relative_tolerance = 0;
  o.solve.max_iterations = 5;
  {
    DistVector x(setup.context, A.communicator(), A.partition(), "x");
    dist_solve(SolverKind::Cg, blas, A, b, x, o);  // warm-up: kernels built or loaded
  }
  o.solve.max_iterations = iterations;
  Measured m;
  std::vector<double> samples;
  for (int rep = 0; rep < reps; ++rep) {
    DistVector x(setup.context, A.communicator(), A.partition(), "x");
    comm.stats() = CommStats();
    MPI_Barrier(comm.comm());
    const SolveResult r = dist_solve(SolverKind::Cg, blas, A, b, x, o);
    const int done = std::max(1, r.iterations);
    // The slowest rank sets the pace; its communication share is the one reported.
    std::vector<double> mine{r.seconds / done, comm.stats().seconds() / std::max(r.seconds, 1e-300),
                             static_cast<double>(comm.stats().halo_bytes_sent) / done,
                             static_cast<double>(comm.stats().allreduces) / done};
    std::vector<double> slowest(mine.size());
    MPI_Allreduce(mine.data(), slowest.data(), 1, MPI_DOUBLE, MPI_MAX, comm.comm());
    MPI_Allreduce(&mine[1], &slowest[1], 1, MPI_DOUBLE, MPI_MAX, comm.comm());
    MPI_Allreduce(&mine[2], &slowest[2], 1, MPI_DOUBLE, MPI_SUM, comm.comm());
    samples.push_back(slowest[0]);
    m.communication_share = slowest[1];
    m.halo_bytes_per_iteration = slowest[2];
    m.allreduces_per_iteration = mine[3];
    m.iterations = r.iterations;
  }
  m.per_iteration = spread_of(samples);
  return m;
}

}  // namespace

int dist_bench_cg_command(const Args& args) {
  return run_distributed("bench cg", [&](const std::shared_ptr<Communicator>& comm) {
    const ParsedArgs opts("bench cg", kSpecs, args);
    if (opts.has("--help")) {
      if (comm->rank() == 0)
        print_usage(std::cout, "bench cg MATRIX... [options]   (under mpirun)",
                    "Times the distributed CG (b = ones, tolerance 0, a fixed iteration count) per MATRIX\n"
                    "(default poisson3d:64), precision and CG variant: the slowest rank's seconds per\n"
                    "iteration, its communication share, halo bytes and allreduces per iteration.",
                    kSpecs);
      return 0;
    }
    const int iterations = static_cast<int>(opts.integer("--iterations", 200, 1, 1 << 30));
    const int reps = static_cast<int>(opts.integer("--reps", 3, 1, 1000));
    const std::vector<Precision> asked = parse_precisions_option(opts);
    std::vector<DistCgVariant> variants;
    for (const std::string& v : opts.list("--variants", {"classic", "single-reduction", "pipelined"})) {
      try {
        variants.push_back(parse_dist_cg_variant(v));
      } catch (const Error& e) {
        throw UsageError(std::string("--variants: ") + e.what());
      }
    }
    DistProblemOptions problem;
    const std::string format = opts.text("--format", "auto");
    if (format != "auto") {
      try {
        problem.format = parse_format(format);
      } catch (const Error& e) {
        throw UsageError(std::string("--format: ") + e.what());
      }
    }
    problem.device = opts.text("--device");
    problem.partition = opts.text("--partition");
    problem.plain_cg = true;
    std::vector<std::string> matrices = opts.positional();
    if (matrices.empty()) matrices.push_back("poisson3d:64");

    CsvTable csv({"matrix", "ranks", "rows", "nnz", "max_rows_per_rank", "precision", "variant", "format", "iterations",
                  "seconds_per_iteration", "min", "max", "communication_share", "halo_bytes_per_iteration",
                  "allreduces_per_iteration"});
    if (comm->rank() == 0)
      std::cout << "matrix            ranks       rows   rows/rank  precision  variant           format  "
                   "s/iteration   comm %   halo B/it  allreduce/it\n";
    for (const std::string& matrix : matrices) {
      problem.matrix = matrix;
      DistSetup setup = open_dist_problem(comm, problem);
      const std::vector<Precision> precisions = asked.empty() ? std::vector<Precision>{setup.widest} : asked;
      const std::vector<std::int64_t> counts = comm->allgather(setup.A->local_rows());
      const std::int64_t most_rows = *std::max_element(counts.begin(), counts.end());
      for (Precision p : precisions) {
        for (DistCgVariant variant : variants) {
          const Measured m = measure(*comm, setup, p, variant, iterations, reps);
          if (comm->rank() != 0) continue;
          char line[256];
          std::snprintf(line, sizeof line,
                        "%-16s %6d %10lld %11lld  %-9s  %-16s  %-6s  %11.4e  %6.1f  %10.0f  %12.1f\n",
                        display_name(matrix).c_str(), comm->size(), static_cast<long long>(setup.A->global_rows()),
                        static_cast<long long>(most_rows), to_string(p).c_str(), to_string(variant).c_str(),
                        to_string(setup.format.format).c_str(), m.per_iteration.median, 100 * m.communication_share,
                        m.halo_bytes_per_iteration, m.allreduces_per_iteration);
          std::cout << line << std::flush;
          csv.add_row();
          csv.set("matrix", display_name(matrix));
          csv.set("ranks", comm->size());
          csv.set("rows", static_cast<double>(setup.A->global_rows()));
          csv.set("nnz", static_cast<double>(setup.A->global_nnz()));
          csv.set("max_rows_per_rank", static_cast<double>(most_rows));
          csv.set("precision", to_string(p));
          csv.set("variant", to_string(variant));
          csv.set("format", to_string(setup.format.format));
          csv.set("iterations", m.iterations);
          csv.set("seconds_per_iteration", m.per_iteration.median);
          csv.set("min", m.per_iteration.min);
          csv.set("max", m.per_iteration.max);
          csv.set("communication_share", m.communication_share);
          csv.set("halo_bytes_per_iteration", m.halo_bytes_per_iteration);
          csv.set("allreduces_per_iteration", m.allreduces_per_iteration);
        }
      }
    }
    if (comm->rank() == 0 && opts.has("--csv")) csv.write_file(opts.text("--csv"));
    return 0;
  });
}

}  // namespace clkr::app
