// The tentative prolongator of smoothed aggregation: on each aggregate, the near-null space B
// restricted to the aggregate's rows, orthonormalised (a thin QR, B_a = Q_a R_a). Q_a's columns are the
// aggregate's columns of P_tent; R_a's rows are the coarse near-null space, so P_tent B_c = B exactly
// on aggregated rows. An aggregate whose B_a has rank k < m (fewer rows than vectors, or dependent
// vectors) contributes k coarse unknowns, not m: P_tent keeps full column rank and no coarse unknown
// is void. Each aggregate becomes one coarse node.
#pragma once

#include <cstdint>
#include <vector>

#include "aggregation.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "nodes.hpp"

namespace clkr::detail::amg {

// m vectors of `rows` elements, stored column after column.
struct NullSpace {
  std::int32_t rows = 0, vectors = 0;
  std::vector<double> values;  // values[c * rows + i]: element i of vector c
  double at(std::int32_t i, std::int32_t c) const {
    return values[static_cast<std::size_t>(c) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(i)];
  }
};

struct TentativeProlongator {
  HostCsrMatrix P;          // rows x coarse unknowns, exact zeros not stored; rows of left-out nodes are empty
  NullSpace coarse_space;   // the coarse near-null space (coarse unknowns x m)
  NodeLayout coarse_nodes;  // one node per aggregate, holding its k coarse unknowns
};

TentativeProlongator tentative_prolongator(const NodeLayout& nodes, const Aggregates& aggregates, const NullSpace& B);

}  // namespace clkr::detail::amg
