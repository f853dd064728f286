// rigid_body_modes: translations and infinitesimal rotations of a mesh's nodes.
#include "clkr/precond/rigid_body_modes.hpp"

#include <cmath>
#include <cstddef>
#include <string>

#include "clkr/runtime/error.hpp"

namespace clkr {

std::vector<std::vector<double>> rigid_body_modes(const std::vector<double>& coordinates, int dimension,
                                                  int unknowns_per_node) {
  if (dimension != 2 && dimension != 3)
    throw Error("rigid_body_modes: dimension " + std::to_string(dimension) + ", expected 2 or 3");
  if (unknowns_per_node == 0) unknowns_per_node = dimension;
  const int with_rotations = dimension == 2 ? 3 : 6;
  if (unknowns_per_node != dimension && unknowns_per_node != with_rotations)
    throw Error("rigid_body_modes: " + std::to_string(unknowns_per_node) + " unknowns per node in " +
                std::to_string(dimension) + "D, expected " + std::to_string(dimension) + " (displacements) or " +
                std::to_string(with_rotations) + " (displacements and rotations)");
  const auto d = static_cast<std::size_t>(dimension);
  if (coordinates.empty() || coordinates.size() % d != 0)
    throw Error("rigid_body_modes: " + std::to_string(coordinates.size()) +
                " coordinates, expected a positive multiple of the dimension " + std::to_string(dimension));
  const std::size_t nodes = coordinates.size() / d;
  double centroid[3] = {0, 0, 0};
  for (std::size_t k = 0; k < coordinates.size(); ++k) {
    if (!std::isfinite(coordinates[k]))
      throw Error("rigid_body_modes: coordinate " + std::to_string(k % d) + " of node " + std::to_string(k / d) +
                  " is " + std::to_string(coordinates[k]));
    centroid[k % d] += coordinates[k];
  }
  for (std::size_t c = 0; c < d; ++c) centroid[c] /= static_cast<double>(nodes);

  const auto u = static_cast<std::size_t>(unknowns_per_node);
  const std::size_t modes = dimension == 2 ? 3 : 6;
  std::vector<std::vector<double>> B(modes, std::vector<double>(u * nodes, 0.0));
  for (std::size_t node = 0; node < nodes; ++node) {
    const std::size_t row = u * node;
    const double x = coordinates[d * node] - centroid[0], y = coordinates[d * node + 1] - centroid[1];
    for (std::size_t c = 0; c < d; ++c) B[c][row + c] = 1;  // the translations
    if (dimension == 2) {
      // The rotation about z: (u, v) = (-y, x), and the node's own rotation 1.
      B[2][row] = -y;
      B[2][row + 1] = x;
      if (u == 3) B[2][row + 2] = 1;
      continue;
    }
    const double z = coordinates[d * node + 2] - centroid[2];
    // The rotations about x, y and z: omega x r for omega = e_x, e_y, e_z, and the node's own
    // rotation unknowns (rows 3-5) equal to omega.
    B[3][row + 1] = -z;
    B[3][row + 2] = y;
    B[4][row] = z;
    B[4][row + 2] = -x;
    B[5][row] = -y;
    B[5][row + 1] = x;
    if (u == 6)
      for (std::size_t r = 0; r < 3; ++r) B[3 + r][row + 3 + r] = 1;
  }
  return B;
}

}  // namespace clkr
