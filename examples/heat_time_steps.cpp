// Implicit time stepping of the heat equation du/dt = div(k grad u) on the unit cube (n^3 interior
// points, u = 0 on the boundary), backward Euler: (I/dt + K(t)) u_{m+1} = u_m / dt, where K(t) is the
// 7-point finite-volume operator of a conductivity k(x, t) that changes every step. It shows how a
// simulator uses clkr across time steps:
//   - the matrix is assembled once from the simulator's own CSR arrays and uploaded once;
//   - every step writes new values on the same pattern (Matrix::update_values) and refreshes the AMG
//     preconditioner (Preconditioner::update: aggregates and prolongators kept, coarse operators and
//     smoothers recomputed), far cheaper than a new setup;
//   - the previous solution is the initial guess of the next solve.
// Exits non-zero when a step does not converge or the refreshed hierarchy needs many more iterations
// than the first step did, so the test suite runs it as a check. Mode `rebuild` does what a simulator
// without value updates must: a new Matrix and a new AMG setup every step (for comparison).
//   usage: heat_time_steps [n=24] [steps=50] [device selector] [update|rebuild]
#include <chrono>
#include <clkr/clkr.hpp>
#include <clkr/precond/amg.hpp>
#include <clkr/solver/cg.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

// The grid's pattern in CSR, rows numbered x fastest: what a simulator's assembly would produce.
clkr::HostCsrMatrix grid_pattern(int n) {
  clkr::HostCsrMatrix A;
  A.rows = A.cols = n * n * n;
  A.symmetric = true;
  auto id = [n](int x, int y, int z) { return (z * n + y) * n + x; };
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        // Columns ascending: -z, -y, -x, self, +x, +y, +z.
        if (z > 0) A.col_indices.push_back(id(x, y, z - 1));
        if (y > 0) A.col_indices.push_back(id(x, y - 1, z));
        if (x > 0) A.col_indices.push_back(id(x - 1, y, z));
        A.col_indices.push_back(id(x, y, z));
        if (x < n - 1) A.col_indices.push_back(id(x + 1, y, z));
        if (y < n - 1) A.col_indices.push_back(id(x, y + 1, z));
        if (z < n - 1) A.col_indices.push_back(id(x, y, z + 1));
        A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
      }
  A.values.assign(A.col_indices.size(), 0.0);
  return A;
}

// The values of I/dt + K(t) on that pattern, in the same order. The conductivity is a smooth field
// that moves with time and varies by a factor of 100 across the cube; the face conductivity is the
// harmonic mean of the two cells' (as finite-volume codes take it), the boundary faces use the cell's.
std::vector<double> assemble_values(const clkr::HostCsrMatrix& pattern, int n, double t, double dt) {
  const double h = 1.0 / (n + 1);
  auto k = [&](int x, int y, int z) {
    const double px = (x + 1) * h, py = (y + 1) * h, pz = (z + 1) * h;
    return std::pow(10.0, 2.0 * std::sin(3.0 * px + t) * std::cos(2.0 * py - t) * std::sin(1.0 + pz));
  };
  auto face = [](double a, double b) { return 2.0 * a * b / (a + b); };
  std::vector<double> values(pattern.values.size());
  std::size_t e = 0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double kc = k(x, y, z);
        double diagonal = 1.0 / dt;
        // Off-diagonals in the pattern's column order; each face adds its coefficient to the diagonal.
        auto off = [&](bool inside, int xx, int yy, int zz) {
          const double c = (inside ? face(kc, k(xx, yy, zz)) : kc) / (h * h);
          diagonal += c;
          return inside ? -c : 0.0;
        };
        const double mz = off(z > 0, x, y, z - 1), my = off(y > 0, x, y - 1, z), mx = off(x > 0, x - 1, y, z);
        const double px = off(x < n - 1, x + 1, y, z), py = off(y < n - 1, x, y + 1, z),
                     pz = off(z < n - 1, x, y, z + 1);
        if (z > 0) values[e++] = mz;
        if (y > 0) values[e++] = my;
        if (x > 0) values[e++] = mx;
        values[e++] = diagonal;
        if (x < n - 1) values[e++] = px;
        if (y < n - 1) values[e++] = py;
        if (z < n - 1) values[e++] = pz;
      }
  return values;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) try {
  const int n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  const std::string selector = argc > 3 ? argv[3] : "";
  const std::string mode = argc > 4 ? argv[4] : "update";
  if (n < 2 || steps < 1 || (mode != "update" && mode != "rebuild")) {
    std::fprintf(stderr, "usage: heat_time_steps [n>=2] [steps>=1] [device selector] [update|rebuild]\n");
    return 2;
  }
  const double dt = 1e-3;

  auto context = clkr::Context::create(selector);
  clkr::Blas blas(context, clkr::Location::Device, clkr::Precision::Double);
  clkr::HostCsrMatrix host = grid_pattern(n);
  host.values = assemble_values(host, n, 0.0, dt);
  auto A = std::make_unique<clkr::Matrix>(context, host);

  auto start = std::chrono::steady_clock::now();
  auto M = std::make_unique<clkr::Amg>(blas, *A);  // the full setup, once
  std::printf("device: %s\n%d^3 = %d rows, %lld nonzeros; AMG setup %.3f s: %s\n", context->info().name.c_str(), n,
              A->rows(), static_cast<long long>(A->nnz()), seconds_since(start), M->description().c_str());

  // Initial temperature: a hot block in one corner.
  std::vector<double> u(host.rows, 0.0);
  for (int i = 0; i < host.rows; ++i) {
    const int x = i % n, y = (i / n) % n, z = i / (n * n);
    if (x < n / 2 && y < n / 2 && z < n / 2) u[i] = 1.0;
  }
  clkr::Vector b(context, host.rows, "rhs"), x(context, u, "temperature");
  clkr::SolveOptions options;
  options.relative_tolerance = 1e-8;
  options.use_initial_guess = true;  // the previous step's temperature

  int first_iterations = 0, worst_iterations = 0;
  double update_total = 0, solve_total = 0, later_steps_total = 0;
  for (int step = 1; step <= steps; ++step) {
    const double t = step * dt * 50;  // the conductivity field moves visibly over the run
    start = std::chrono::steady_clock::now();
    if (mode == "update") {
      A->update_values(assemble_values(host, n, t, dt));  // same pattern, new values: uploads values only
      M->update(*A);                                      // refresh the hierarchy's values
    } else {
      host.values = assemble_values(host, n, t, dt);
      M.reset();  // the preconditioner refers to A: gone first
      A = std::make_unique<clkr::Matrix>(context, host);
      M = std::make_unique<clkr::Amg>(blas, *A);
    }
    const double update_seconds = seconds_since(start);

    std::vector<double> rhs = x.to_host();
    for (double& v : rhs) v /= dt;
    b.assign(rhs);
    const clkr::SolveResult result = clkr::cg(blas, *A, *M, b, x, options);
    update_total += update_seconds;
    solve_total += result.seconds;
    if (step > 1) later_steps_total += update_seconds + result.seconds;
    if (step == 1) first_iterations = result.iterations;
    worst_iterations = std::max(worst_iterations, result.iterations);
    if (step == 1 || step % 10 == 0 || !result.converged())
      std::printf("step %3d: update %.4f s, CG %2d iterations %.4f s, true residual %.1e\n", step, update_seconds,
                  result.iterations, result.seconds, result.true_relative_residual);
    if (!result.converged() || !(result.true_relative_residual <= 1e-7)) {
      std::fprintf(stderr, "step %d did not converge: %s\n", step, result.message.c_str());
      return 1;
    }
  }
  std::printf(
      "%d steps (%s; the first builds the OpenCL kernels): updates %.3f s, solves %.3f s, %.4f s per step after "
      "the first; iterations: first step %d, worst step %d\n",
      steps, mode.c_str(), update_total, solve_total, steps > 1 ? later_steps_total / (steps - 1) : 0.0,
      first_iterations, worst_iterations);
  // The refreshed hierarchy keeps the setup's aggregates and prolongators: it must stay about as good
  // as the first step's hierarchy while the coefficients move.
  if (worst_iterations > 2 * first_iterations + 2) {
    std::fprintf(stderr, "the updated preconditioner degraded: %d iterations against %d on the first step\n",
                 worst_iterations, first_iterations);
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
