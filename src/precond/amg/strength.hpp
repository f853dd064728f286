// Strength of connection between the nodes of a level (Vanek, Mandel and Brezina 1996): nodes I != J are
// strongly connected when ||A_IJ||_F^2 > eps^2 ||A_II||_F ||A_JJ||_F, the scalar case being
// a_ij^2 > eps^2 |a_ii a_jj|. Aggregation follows the strong connections; the prolongator smoother uses
// A with its weak connections lumped onto the diagonal (the filtered matrix).
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "nodes.hpp"

namespace clkr::detail::amg {

struct StrengthGraph {
  // The strong neighbours of each node (itself excluded), with the strength of each connection
  // (||A_IJ||_F^2 / (||A_II||_F ||A_JJ||_F)): a node CSR.
  std::vector<std::int32_t> offsets{0}, neighbours;
  std::vector<double> weights;
  // Per stored entry of A: 1 when the filtered matrix keeps it (its nodes are the same or strongly
  // connected), 0 when it is lumped onto the diagonal. Empty for StrengthOutput::GraphOnly.
  std::vector<char> keep;
  std::int32_t nodes() const { return static_cast<std::int32_t>(offsets.size()) - 1; }
};

// What strength_of_connection makes besides the graph: the filtered matrix's marks (`keep`), which
// only prolongator smoothing reads. Plain aggregation asks for the graph alone, and `keep` stays
// empty (on nodes of several unknowns, marking every entry cost a quarter of the time).
enum class StrengthOutput { GraphAndFilter, GraphOnly };

StrengthGraph strength_of_connection(const HostCsrMatrix& A, const NodeLayout& nodes, double eps,
                                     StrengthOutput output = StrengthOutput::GraphAndFilter);

}  // namespace clkr::detail::amg
