// clkr::HaloPattern: which x values a rank sends to and receives from which ranks before each
// distributed SpMV, computed once when the DistMatrix is built.
#pragma once

#include <cstdint>
#include <vector>

namespace clkr {

struct HaloPattern {
  // The ranks this rank receives from, ascending; rank recv_ranks[i]'s values fill halo entries
  // recv_offsets[i] .. recv_offsets[i + 1] - 1.
  std::vector<int> recv_ranks;
  std::vector<std::int32_t> recv_offsets{0};
  // The global column (row of x) of each halo entry, ascending: the halo block's column j is
  // halo_columns[j].
  std::vector<std::int64_t> halo_columns;
  // The ranks this rank sends to, ascending; rank send_ranks[i] gets the values of this rank's local
  // rows send_indices[send_offsets[i] .. send_offsets[i + 1] - 1].
  std::vector<int> send_ranks;
  std::vector<std::int32_t> send_offsets{0};
  std::vector<std::int32_t> send_indices;

  std::int32_t halo_size() const { return recv_offsets.back(); }
  std::int32_t send_size() const { return send_offsets.back(); }
};

}  // namespace clkr
