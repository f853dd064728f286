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

// Waits up to a few seconds for the live device bytes to stop changing (the same count for 50 ms): what
// a step holds once the temporary buffers it released are gone, when their size is not known.
inline std::uint64_t stable_live_bytes(Context& context) {
  context.finish();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::uint64_t live = context.device_memory().live_bytes;
  int unchanged = 0;
  while (unchanged < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::uint64_t now = context.device_memory().live_bytes;
    unchanged = now == live ? unchanged + 1 : 0;
    live = now;
  }
  return live;
}

}  // namespace clkr::test
