// The host side of the grid-barrier kernels (runtime/grid_barrier.cl: the persistent CG, the AMG's
// coarse cycle): their state block, and how many of their work-groups run at once. OpenCL does not say,
// and a launch whose groups do not all run waits out its barriers' spin limit, so the count is probed.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// kernels/runtime/grid_barrier.cl's state block, shared with the host: kGridStateInts ints (arrivals,
// what the launch got done, status, padding), the status at kGridStatus.
constexpr int kGridStateInts = 4;
constexpr int kGridStatus = 2;
enum GridStatus : cl_int { kGridRunning = 0, kGridReached = 1, kGridBreakdown = 2, kGridAborted = 3 };
// Polls each group makes at a residency probe's one barrier (about 20 ms on an H200 when they do not
// all run).
constexpr int kGridProbePolls = 1 << 16;

// From `groups` down, halving (never below `compute_units`), the first count whose work-groups all run
// at once: counts at or below `compute_units` are taken as running (one group per compute unit); the
// others are looked up in the context's memory of earlier probes under `shape(count)` (the kernel, its
// build options, sizes and the count), or probed with `probe(count)` (a launch whose groups meet at one
// grid barrier: true when they all arrived) and remembered, so a shape is probed once per context.
std::size_t settle_co_resident_groups(Context& context, std::size_t groups, std::size_t compute_units,
                                      const std::function<std::string(std::size_t)>& shape,
                                      const std::function<bool(std::size_t)>& probe);

}  // namespace clkr::detail
