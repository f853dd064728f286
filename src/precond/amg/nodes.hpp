// The unknowns of a level grouped into nodes: consecutive rows that aggregation keeps together (the
// unknowns of one mesh point; on coarse levels, the coarse unknowns one aggregate made).
#pragma once

#include <cstdint>
#include <vector>

namespace clkr::detail::amg {

struct NodeLayout {
  std::vector<std::int32_t> offsets{0};  // node k owns rows offsets[k] .. offsets[k+1]-1
  std::int32_t count() const { return static_cast<std::int32_t>(offsets.size()) - 1; }
  std::int32_t rows() const { return offsets.back(); }
  // `rows` rows in nodes of `block_size` consecutive rows each (rows a multiple of block_size).
  static NodeLayout uniform(std::int32_t rows, std::int32_t block_size);
  // The rows of the smallest and of the largest node (0 without nodes).
  std::int32_t smallest() const;
  std::int32_t largest() const;
  // node_of[row] for every row.
  std::vector<std::int32_t> node_of_rows() const;
};

}  // namespace clkr::detail::amg
