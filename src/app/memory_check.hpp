// The memory a solve will need, estimated from what the matrix spec declares (the file's size line, the
// generator's formula) before anything is read or allocated, and refused with the need and the limit
// when it cannot fit: a 60-byte file declaring 2e9 rows otherwise costs minutes of page faults.
#pragma once

#include <string>

#include "clkr/data/precision.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/solver/device_memory.hpp"

namespace clkr::app {

// Throws clkr::Error naming the need and the limit when solving `size` in `precision` (the outer one)
// cannot fit the device (its global memory, or its largest single allocation) or the host. The
// estimates are lower bounds (the row offsets and four vectors, which every solver holds), so a
// refusal is always right; a matrix that passes can still run out of memory later, with an error then.
void check_solve_memory(const std::string& spec, const DeclaredSize& size, Precision precision,
                        const DeviceInfo& device);

// Once the matrix is read: throws clkr::Error when what the solve will hold on the device (`need`, from
// solve_device_memory: the matrix in its format and precisions, and the vectors, exactly) exceeds the
// device's global memory or the context's limit (CLKR_DEVICE_MEMORY_LIMIT), naming both. `what`:
// "solving <matrix> in double with cg". A preconditioner's own memory comes on top and is not counted.
void check_device_memory(const std::string& what, Format format, const DeviceMemoryNeed& need, const Context& context);

}  // namespace clkr::app
