// Adding up the AMG setup's phases (PhaseTimes: one total per name, in order of first appearance; the
// phases repeat on every level).
#pragma once

#include <chrono>
#include <string>

#include "clkr/precond/preconditioner.hpp"

namespace clkr::detail::amg {

using Clock = std::chrono::steady_clock;

// Adds the time since `start` to the phase `name`.
inline void add_phase(PhaseTimes& phases, const std::string& name, Clock::time_point start) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& [phase, total] : phases)
    if (phase == name) {
      total += seconds;
      return;
    }
  phases.emplace_back(name, seconds);
}

}  // namespace clkr::detail::amg
