// The rigid-body modes of a mesh: the near-null space that smoothed-aggregation AMG needs for
// elasticity (AmgOptions::near_null_space). A FEM code knows its node coordinates; from them these
// are the displacements that strain nothing (translations and rotations), which the stiffness matrix
// of an unconstrained body annihilates and a constrained one nearly does. The default near-null space,
// a constant per unknown of a node, holds the translations only.
#pragma once

#include <vector>

namespace clkr {

// `coordinates`: `dimension` (2 or 3) values per node, node after node. `unknowns_per_node`: 0 or
// `dimension` for displacements only; 3 in 2D (u, v, and a rotation) or 6 in 3D (u, v, w and three
// rotations) for beams, plates and shells, whose rotation unknowns follow the displacements of each
// node. The unknowns are numbered node by node, as AmgOptions::block_size expects (row u * node + j is
// unknown j of the node). Returns the modes as vectors of unknowns_per_node x nodes entries: in 3D
// three translations and the rotations about x, y and z, in 2D two translations and the rotation
// about z; rotations about the nodes' centroid (which keeps the vectors well conditioned far from the
// origin). Throws clkr::Error for another dimension or number of unknowns, a coordinate count that is
// not a multiple of the dimension, no nodes, or a coordinate that is NaN or infinite.
std::vector<std::vector<double>> rigid_body_modes(const std::vector<double>& coordinates, int dimension,
                                                  int unknowns_per_node = 0);

}  // namespace clkr
