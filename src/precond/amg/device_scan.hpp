// Exclusive prefix sums of int counts on the device (kernels/precond/scan.cl): the row offsets of every
// matrix the device AMG setup builds. Each total the host needs costs a wait for the device; these
// read one where one is needed, one for two scans, and none where the caller knows the total.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "device_setup_kernels.hpp"

namespace clkr::detail::amg {

// In place: values[0, n) holds counts on entry, values[0, n] their exclusive prefix sums on exit
// (the buffer has n + 1 ints). Returns the total, read back; throws clkr::Error naming `what` when it
// passes the 32-bit index range of clkr's matrices.
std::int32_t exclusive_scan(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n,
                            const std::string& what);

// Two such scans of n counts each, their totals read back together (one wait).
std::array<std::int32_t, 2> exclusive_scans(const SetupKernels& kernels, const cl::Buffer& first,
                                            const cl::Buffer& second, std::int32_t n, const std::string& first_what,
                                            const std::string& second_what);

// The scan alone, for a caller that knows the total (a transpose has as many entries as its matrix):
// nothing is read back.
void exclusive_scan_of_known_total(const SetupKernels& kernels, const cl::Buffer& values, std::int32_t n);

}  // namespace clkr::detail::amg
