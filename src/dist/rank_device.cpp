// The device of each rank: selector expansion, the round-robin default, and the collective check.
#include "clkr/dist/rank_device.hpp"

#include <cstdlib>
#include <vector>

#include "clkr/runtime/error.hpp"

namespace clkr {

std::string expand_rank_selector(const std::string& selector, int rank, int node_rank) {
  std::string out;
  for (std::size_t i = 0; i < selector.size(); ++i) {
    if (selector[i] != '%') {
      out += selector[i];
      continue;
    }
    const char next = i + 1 < selector.size() ? selector[i + 1] : '\0';
    if (next == 'r') {
      out += std::to_string(rank);
    } else if (next == 'l') {
      out += std::to_string(node_rank);
    } else if (next == '%') {
      out += '%';
    } else {
      throw Error("device selector '" + selector + "': '%" + std::string(next ? 1 : 0, next) +
                  "' is not %r (global rank), %l (node-local rank) or %%");
    }
    ++i;
  }
  return out;
}

std::shared_ptr<Context> open_rank_context(Communicator& comm, const std::string& selector) {
  std::shared_ptr<Context> context;
  comm.checked("", [&] {
    const char* env = std::getenv("CLKR_DEVICE");
    std::string chosen = !selector.empty() ? selector : env ? std::string(env) : std::string();
    if (chosen.empty()) {
      std::vector<DeviceInfo> gpus;
      for (const DeviceInfo& info : Context::list_devices())
        if (info.type == DeviceType::Gpu) gpus.push_back(info);
      if (!gpus.empty()) chosen = gpus[static_cast<std::size_t>(comm.node_rank()) % gpus.size()].index_selector();
    }
    chosen = expand_rank_selector(chosen, comm.rank(), comm.node_rank());
    try {
      context = Context::create(chosen);
    } catch (const Error& e) {
      const std::string which = chosen.empty() ? "the default device" : "device selector '" + chosen + "'";
      throw Error("no usable device (" + which + "): " + e.what(), e.code());
    }
  });
  return context;
}

}  // namespace clkr
