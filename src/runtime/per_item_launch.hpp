// The launch shape of the simple kernels that give one work-item to each of n elements (conversions,
// scatters, histograms): n rounded up to whole work-groups. Their kernels check `i < n` themselves;
// kernels with a tuned shape (BLAS, SpMV, the AMG setup's) take it from their parameters instead.
#pragma once

#include <cstddef>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// Enqueues `kernel` (its arguments set) on the context's queue over n work-items in groups of `local`
// (0: 256, or the device's maximum where that is less); nothing where n is 0.
void enqueue_per_item(Context& context, const cl::Kernel& kernel, std::size_t n, std::size_t local = 0);

}  // namespace clkr::detail
