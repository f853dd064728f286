// scratch: where an AMG update's time goes (kernel sums against wall), profiled queue
#include <chrono>
#include <clkr/clkr.hpp>
#include <clkr/io/generators.hpp>
#include <clkr/precond/make_preconditioner.hpp>
#include <cstdio>
#include <iostream>
using namespace clkr;
int main(int argc, char** argv) {
  const std::string spec = argc > 1 ? argv[1] : "poisson3d:128";
  const bool jacobi = argc > 2 && std::string(argv[2]) == "jacobi";
  auto ctx = Context::create(getenv("SEL") ? getenv("SEL") : "nvidia");
  HostCsrMatrix host = load_matrix(spec);
  Matrix A(ctx, host, Format::Dia);
  Blas blas(ctx, Location::Device, Precision::Double);
  PrecondOptions o;
  o.kind = PrecondKind::Amg;
  o.precision = Precision::Single;
  o.amg.setup_on = AmgOptions::SetupOn::Device;
  o.amg.aggressive_levels = 1;
  if (jacobi) o.amg.smoother = AmgSmoother::Jacobi;
  auto M = make_preconditioner(blas, A, o);
  ctx->finish();
  for (int rep = 0; rep < 4; ++rep) {
    std::vector<double> v = host.values;
    for (double& x : v) x *= 1.0 + 0.02 * (rep + 1);
    A.update_values(v);
    ctx->finish();
    M->blas().reset_counters();
    auto t0 = std::chrono::steady_clock::now();
    M->update(A);
    ctx->finish();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("\n== %s rep %d update wall %.3f ms\n", spec.c_str(), rep, wall * 1e3);
    for (auto& [name, t] : M->update_phases()) std::printf("  phase %-24s %.3f ms\n", name.c_str(), t * 1e3);
    M->blas().report(std::cout);
  }
}
