// elasticity3d: linear elasticity on the unit cube with trilinear hexahedra, assembled straight into
// CSR node by node (no element loop with scattered additions, so rows are filled in parallel and the
// result does not depend on the thread count).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr {
namespace {

constexpr int kNodeUnknowns = 3;
using ElementMatrix = std::array<std::array<double, 24>, 24>;

// The stiffness matrix of one cube of side h (Young's modulus 1), 2 x 2 x 2 Gauss points: K_e =
// sum_g B_g^T D B_g det(J) with B the strain-displacement matrix (engineering shear strains) and D
// Hooke's law for an isotropic material. Local node a = ax + 2 ay + 4 az, its unknowns 3a .. 3a + 2.
ElementMatrix hexahedron_stiffness(double h, double nu) {
  const double lambda = nu / ((1 + nu) * (1 - 2 * nu)), mu = 1 / (2 * (1 + nu));
  double D[6][6] = {};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) D[i][j] = lambda;
    D[i][i] = lambda + 2 * mu;
    D[3 + i][3 + i] = mu;
  }
  ElementMatrix K{};
  const double g = 1 / std::sqrt(3.0);
  const double det = h * h * h / 8;  // the Jacobian of the map from [-1, 1]^3, each Gauss weight 1
  for (int q = 0; q < 8; ++q) {
    const double xi[3] = {(q & 1) ? g : -g, (q & 2) ? g : -g, (q & 4) ? g : -g};
    double B[6][24] = {};
    for (int a = 0; a < 8; ++a) {
      const double s[3] = {(a & 1) ? 1.0 : -1.0, (a & 2) ? 1.0 : -1.0, (a & 4) ? 1.0 : -1.0};
      double dN[3];  // dN_a / dx, dy, dz: the reference derivative times 2 / h
      for (int d = 0; d < 3; ++d) {
        dN[d] = s[d] / 8 * 2 / h;
        for (int e = 0; e < 3; ++e)
          if (e != d) dN[d] *= 1 + s[e] * xi[e];
      }
      const int c = 3 * a;
      B[0][c] = dN[0];
      B[1][c + 1] = dN[1];
      B[2][c + 2] = dN[2];
      B[3][c] = dN[1];
      B[3][c + 1] = dN[0];
      B[4][c + 1] = dN[2];
      B[4][c + 2] = dN[1];
      B[5][c] = dN[2];
      B[5][c + 2] = dN[0];
    }
    for (int i = 0; i < 24; ++i) {
      double DB[6];
      for (int r = 0; r < 6; ++r) {
        DB[r] = 0;
        for (int t = 0; t < 6; ++t) DB[r] += D[r][t] * B[t][i];
      }
      for (int j = 0; j < 24; ++j) {
        double sum = 0;
        for (int r = 0; r < 6; ++r) sum += B[r][j] * DB[r];
        K[j][i] += sum * det;
      }
    }
  }
  // Symmetric to the last bit (the sums above round differently for (i, j) and (j, i)), so that the
  // assembled matrix is symmetric entry by entry.
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < i; ++j) K[i][j] = K[j][i] = (K[i][j] + K[j][i]) / 2;
  return K;
}

// The unclamped nodes (i, j, k), i = 1 .. n (i = 0 is the clamped face x = 0), j, k = 0 .. n, numbered
// with i fastest; visit(neighbour, block) is called for each node of the 27-point neighbourhood that
// is not clamped, in ascending node order, with the 3 x 3 block of couplings summed over the cubes the
// two nodes share.
template <class Visit>
void node_row(std::int64_t node, int n, const ElementMatrix& K, const Visit& visit) {
  const std::int64_t side = n + 1;
  const int i = static_cast<int>(node % n) + 1, j = static_cast<int>(node / n % side),
            k = static_cast<int>(node / n / side);
  for (int dk = -1; dk <= 1; ++dk) {
    for (int dj = -1; dj <= 1; ++dj) {
      for (int di = -1; di <= 1; ++di) {
        const int ni = i + di, nj = j + dj, nk = k + dk;
        if (ni < 1 || ni > n || nj < 0 || nj > n || nk < 0 || nk > n) continue;
        double block[3][3] = {};
        // Cubes (ex, ey, ez), 0 .. n - 1 per axis, holding the node and its neighbour.
        for (int ez = std::max(k, nk) - 1; ez <= std::min(k, nk); ++ez) {
          for (int ey = std::max(j, nj) - 1; ey <= std::min(j, nj); ++ey) {
            for (int ex = std::max(i, ni) - 1; ex <= std::min(i, ni); ++ex) {
              if (ex < 0 || ex >= n || ey < 0 || ey >= n || ez < 0 || ez >= n) continue;
              const int a = (i - ex) + 2 * (j - ey) + 4 * (k - ez);
              const int b = (ni - ex) + 2 * (nj - ey) + 4 * (nk - ez);
              for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) block[r][c] += K[3 * a + r][3 * b + c];
            }
          }
        }
        visit((ni - 1) + static_cast<std::int64_t>(n) * (nj + side * nk), block);
      }
    }
  }
}

std::int64_t checked_nodes(int n, const std::string& what) {
  if (n < 1) throw Error(what + ", expected n >= 1");
  const long double nodes = static_cast<long double>(n) * (n + 1.0L) * (n + 1.0L);
  if (kNodeUnknowns * nodes > std::numeric_limits<std::int32_t>::max())
    throw Error(what + " gives more rows than the int32 limit " +
                std::to_string(std::numeric_limits<std::int32_t>::max()));
  return static_cast<std::int64_t>(nodes);
}

}  // namespace

HostCsrMatrix elasticity3d(int n, double poisson_ratio) {
  const std::string what = "elasticity3d: n = " + std::to_string(n);
  if (!(poisson_ratio > -1 && poisson_ratio < 0.5))
    throw Error("elasticity3d: Poisson's ratio = " + std::to_string(poisson_ratio) + ", expected -1 < nu < 0.5");
  const std::int64_t nodes = checked_nodes(n, what);
  const std::int64_t rows = kNodeUnknowns * nodes;
  // Before counting: 27 neighbours of 3 unknowns a row at most.
  check_host_memory(8 * (rows + 1) + 12 * 81 * rows,
                    what + " (" + std::to_string(rows) + " rows, up to " + std::to_string(81 * rows) + " nonzeros)");
  const ElementMatrix K = hexahedron_stiffness(1.0 / n, poisson_ratio);

  HostCsrMatrix A;
  A.rows = A.cols = static_cast<std::int32_t>(rows);
  A.symmetric = true;
  A.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  std::int64_t* offsets = A.row_offsets.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t node = 0; node < nodes; ++node) {
    std::int64_t neighbours = 0;
    node_row(node, n, K, [&](std::int64_t, const double(&)[3][3]) { ++neighbours; });
    for (int r = 0; r < kNodeUnknowns; ++r) offsets[kNodeUnknowns * node + r + 1] = kNodeUnknowns * neighbours;
  }
  for (std::int64_t row = 0; row < rows; ++row) offsets[row + 1] += offsets[row];
  A.col_indices.resize(static_cast<std::size_t>(offsets[rows]));
  A.values.resize(static_cast<std::size_t>(offsets[rows]));
  std::int32_t* col = A.col_indices.data();
  double* val = A.values.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t node = 0; node < nodes; ++node) {
    std::int64_t slot[kNodeUnknowns];
    for (int r = 0; r < kNodeUnknowns; ++r) slot[r] = offsets[kNodeUnknowns * node + r];
    node_row(node, n, K, [&](std::int64_t neighbour, const double(&block)[3][3]) {
      for (int r = 0; r < kNodeUnknowns; ++r) {
        for (int c = 0; c < kNodeUnknowns; ++c) {
          col[slot[r]] = static_cast<std::int32_t>(kNodeUnknowns * neighbour + c);
          val[slot[r]++] = block[r][c];
        }
      }
    });
  }
  return A;
}

std::vector<double> elasticity3d_coordinates(int n) {
  const std::int64_t nodes = checked_nodes(n, "elasticity3d_coordinates: n = " + std::to_string(n));
  const double h = 1.0 / n;
  std::vector<double> xyz(static_cast<std::size_t>(3 * nodes));
  for (std::int64_t node = 0; node < nodes; ++node) {
    xyz[3 * node] = (node % n + 1) * h;
    xyz[3 * node + 1] = (node / n % (n + 1)) * h;
    xyz[3 * node + 2] = (node / n / (n + 1)) * h;
  }
  return xyz;
}

}  // namespace clkr
