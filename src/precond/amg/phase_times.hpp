// Adding up the AMG setup's phases: one total per name, in order of first appearance (the phases
// repeat on every level), of the time (PhaseTimes) and of what the device was asked to do
// (PhaseCommands: launches, waits, transfers, allocations).
#pragma once

#include <chrono>
#include <string>

#include "clkr/precond/preconditioner.hpp"

namespace clkr::detail::amg {

using Clock = std::chrono::steady_clock;

class PhaseLog {
 public:
  // Times into `times`; with `commands` and `context`, that context's commands too, each phase charged
  // with those queued since the previous phase ended (or since the log was made).
  explicit PhaseLog(PhaseTimes& times, PhaseCommands* commands = nullptr, const Context* context = nullptr)
      : times_(times), commands_(commands), context_(context) {
    if (context_) last_ = context_->command_counts();
  }

  // Adds the time since `start`, and the commands since the previous phase, to the phase `name`.
  void add(const std::string& name, Clock::time_point start) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    total(times_, name, 0.0) += seconds;
    if (!commands_ || !context_) return;
    const CommandCounts now = context_->command_counts();
    total(*commands_, name, CommandCounts{}) += now - last_;
    last_ = now;
  }

 private:
  template <class T>
  static T& total(std::vector<std::pair<std::string, T>>& list, const std::string& name, const T& zero) {
    for (auto& [phase, value] : list)
      if (phase == name) return value;
    return list.emplace_back(name, zero).second;
  }

  PhaseTimes& times_;
  PhaseCommands* commands_;
  const Context* context_;
  CommandCounts last_;
};

}  // namespace clkr::detail::amg
