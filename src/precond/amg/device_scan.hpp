// Exclusive prefix sums of int counts on the device (kernels/precond/scan.cl): the row offsets of every
// matrix the device AMG setup builds.
#pragma once

#include <cstdint>
#include <string>

#include "device_setup_kernels.hpp"

namespace clkr::detail::amg {

// In place: values[0, n) holds counts on entry, values[0, n] their exclusive prefix sums on exit
// (the buffer has n + 1 ints). Returns the total, read back; throws clkr::Error naming `what` when it
// passes the 32-bit index range of clkr's matrices.
std::int32_t exclusive_scan(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n,
                            const std::string& what);

}  // namespace clkr::detail::amg
