// Shared by the tests that count device memory (runtime, solver, stress): the driver may free a
// released buffer from its own thread a little after the last handle goes and finish() returns, later
// still on a loaded machine, so a test compares counts only once they have settled.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#include "clkr/runtime/context.hpp"

namespace clkr::test {

// Waits up to a few seconds for the live device bytes to reach `expected`; returns the count then.
inline std::uint64_t settled_live_bytes(Context& context, std::uint64_t expected) {
  context.finish();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::uint64_t live = context.device_memory().live_bytes;
  while (live != expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    live = context.device_memory().live_bytes;
  }
  return live;
}

}  // namespace clkr::test
