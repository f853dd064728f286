// Model-problem matrices generated in memory, and load_matrix: one entry point for "a matrix spec"
// (a generator spec such as "poisson3d:128", or a Matrix Market file path).
#pragma once

#include <string>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/io/matrix_market.hpp"

namespace clkr {

// 5-point Laplacian on an n x n grid (Dirichlet boundary): n^2 rows, 4 on the diagonal, -1 for each
// grid neighbour, 5n^2 - 4n nonzeros, symmetric positive definite. Throws clkr::Error for n < 1 or
// sizes beyond int32.
HostCsrMatrix poisson2d(int n);

// 7-point Laplacian on an n x n x n grid: n^3 rows, 6 on the diagonal, -1 off it, 7n^3 - 6n^2 nonzeros.
HostCsrMatrix poisson3d(int n);

// True when `spec` names a generator ("poisson2d:..." or "poisson3d:..."), well-formed or not.
bool is_generator_spec(const std::string& spec);

// "poisson2d:N" or "poisson3d:N" (N >= 1) generates; anything else is read as a Matrix Market file.
// A malformed generator spec throws clkr::Error saying what was expected.
HostCsrMatrix load_matrix(const std::string& spec, const MatrixMarketOptions& options = {});

}  // namespace clkr
