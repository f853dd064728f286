// The residency search shared by the grid-barrier kernels.
#include "co_resident_groups.hpp"

#include <algorithm>
#include <optional>

namespace clkr::detail {

std::size_t settle_co_resident_groups(Context& context, std::size_t groups, std::size_t compute_units,
                                      const std::function<std::string(std::size_t)>& shape,
                                      const std::function<bool(std::size_t)>& probe) {
  while (groups > compute_units) {
    const std::string name = shape(groups);
    std::optional<bool> resident = context.co_resident(name);
    if (!resident) {
      resident = probe(groups);
      context.remember_co_residency(name, *resident);
    }
    if (*resident) break;
    groups = std::max(compute_units, groups / 2);
  }
  return groups;
}

}  // namespace clkr::detail
