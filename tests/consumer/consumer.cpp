// A downstream program built against the installed clkr, as a FEM/CFD code would use it: solves a
// generated Poisson problem with CG on the default device and prints "consumer ok" when it converged
// (the test checks that line).
#include <clkr/clkr.hpp>
#include <iostream>
#include <vector>

int main() {
  try {
    auto context = clkr::Context::create();
    clkr::Matrix A(context, clkr::load_matrix("poisson2d:16"), clkr::Format::Csr);
    clkr::Vector b(context, std::vector<double>(A.rows(), 1.0), "b");
    clkr::Vector x(context, A.rows(), "x");
    clkr::Blas blas(context, clkr::Location::Device, clkr::Precision::Double);
    const clkr::SolveResult result = clkr::solve(clkr::SolverKind::Cg, blas, A, b, x);
    std::cout << "device: " << context->info().summary() << "\nCG: " << to_string(result.status) << " in "
              << result.iterations << " iterations, true residual " << result.true_relative_residual << "\n";
    if (!result.converged() || result.true_relative_residual > 1e-7) return 1;
    std::cout << "consumer ok\n";
    return 0;
  } catch (const clkr::Error& e) {
    std::cerr << "consumer failed: " << e.what() << "\n";
    return 1;
  }
}
