// Model-problem matrices generated in memory, and load_matrix: one entry point for "a matrix spec"
// (a generator spec such as "poisson3d:128", or a Matrix Market file path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/io/matrix_market.hpp"

namespace clkr {

// 5-point Laplacian on an n x n grid (Dirichlet boundary): n^2 rows, 4 on the diagonal, -1 for each
// grid neighbour, 5n^2 - 4n nonzeros, symmetric positive definite. Throws clkr::Error for n < 1 or
// sizes beyond int32.
HostCsrMatrix poisson2d(int n);

// 7-point Laplacian on an n x n x n grid: n^3 rows, 6 on the diagonal, -1 off it, 7n^3 - 6n^2 nonzeros.
HostCsrMatrix poisson3d(int n);

// -u_xx - u_yy - epsilon u_zz on an n^3 grid (7-point, Dirichlet): the z couplings epsilon times the
// others (0 < epsilon <= 1). Strong anisotropy (epsilon = 1e-3, the default of the spec) makes point
// smoothers useless across z and needs aggregates that follow the strong direction.
HostCsrMatrix anisotropic3d(int n, double epsilon);

// -div(k grad u) on an n^3 grid (7-point, Dirichlet), k = contrast on the cells of a 4 x 4 x 4
// checkerboard of cubes and 1 on the others, the face couplings the harmonic mean of the two cells' k
// (contrast >= 1; 1e4 is the spec's default). Jumps by `contrast` across every cube face.
HostCsrMatrix jumping3d(int n, double contrast);

// Linear elasticity on the unit cube (Young's modulus 1, Poisson's ratio nu, -1 < nu < 0.5; the
// spec's default 0.3): n x n x n trilinear hexahedra (2 x 2 x 2 Gauss points), the face x = 0
// clamped. Its (n+1)^2 nodes are left out; the other n (n+1)^2 nodes keep their three displacements,
// numbered node by node (rows 3k, 3k+1, 3k+2: u, v, w of node k), nodes with x fastest, then y, then
// z. 3 n (n+1)^2 rows, at most 81 entries a row (27 nodes of 3 unknowns), symmetric positive definite.
// The near-null space that smoothed-aggregation AMG needs here is the six rigid-body modes
// (rigid_body_modes(elasticity3d_coordinates(n), 3)): the default, a constant per unknown of a node,
// holds the translations but not the rotations. Throws clkr::Error for n < 1, a bad nu, sizes beyond
// int32 or more host memory than is available.
HostCsrMatrix elasticity3d(int n, double poisson_ratio = 0.3);
// The coordinates of elasticity3d(n)'s nodes: x, y, z of each node, in the matrix's node order.
std::vector<double> elasticity3d_coordinates(int n);

// The node coordinates of a generated mesh problem, for rigid_body_modes: elasticity3d:N[:NU]'s
// (dimension 3, elasticity3d_coordinates); no values and dimension 0 for every other spec. Throws what
// load_matrix throws for a malformed elasticity3d spec.
struct MeshCoordinates {
  std::vector<double> values;  // `dimension` values a node, node after node
  int dimension = 0;
};
MeshCoordinates generator_coordinates(const std::string& spec);

// powerlaw(): row lengths (the diagonal included) from min_row_length to max_row_length, distributed
// with a density proportional to length^-exponent (the defaults: 15 to 1,015 entries, mean about 57,
// the irregular matrix of issue 13), columns at random (a configuration model), seeded.
struct PowerLawOptions {
  int min_row_length = 15;
  int max_row_length = 1015;
  double exponent = 2.08;
  std::uint64_t seed = 1;
};

// n x n, symmetric, off-diagonal entries in (-1, -0.5], each diagonal entry its row's off-diagonal
// magnitudes plus 1 to 2 (strictly diagonally dominant: SPD, eigenvalues in [1, 2 max diagonal]).
// Deterministic for a seed on every platform. Throws clkr::Error for n < 1, bad options, more than
// 2^31 - 1 nonzeros, or more host memory than is available.
HostCsrMatrix powerlaw(int n, const PowerLawOptions& options = {});

// True when `spec` names a generator ("poisson2d:...", "anisotropic3d:...", ...), well-formed or not.
bool is_generator_spec(const std::string& spec);

// What a matrix spec will hold, from the generator's formula or the file's size line, without building
// or reading the matrix: for checking memory before the allocation. max_nnz is an upper bound (a
// symmetric file's entries counted twice). known is false for a malformed spec or a missing file (load_matrix then
// says what is wrong). Throws what read_matrix_market_size throws.
struct DeclaredSize {
  std::int64_t rows = 0, cols = 0, max_nnz = 0;
  bool known = false;
};
DeclaredSize declared_size(const std::string& spec);

// Generates "poisson2d:N", "poisson3d:N", "anisotropic3d:N[:EPSILON]", "jumping3d:N[:CONTRAST]",
// "elasticity3d:N[:NU]" or "powerlaw:N[:MAXROW]" (N >= 1; powerlaw's rows have 15 to MAXROW entries,
// default 1015); anything else is read as a Matrix Market file. A malformed generator spec throws
// clkr::Error saying what was expected.
HostCsrMatrix load_matrix(const std::string& spec, const MatrixMarketOptions& options = {});

}  // namespace clkr
