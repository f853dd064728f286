// Internal to src/data: Matrix::update_values in a format other than CSR, on the device. The host
// scatter it replaces zero-filled staging arrays as large as the format's padded storage, filled them
// and uploaded them whole: on the H200 machine 125 ms for poisson3d:128 in DIA and 737 ms for
// poisson3d:256, a GPU time step's largest cost. Here the values go up in CSR order (the bytes the
// caller holds), in chunks through a staging buffer kept between updates, and a kernel puts each
// where the format keeps it (kernels/data/scatter_values.cl).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// Where each CSR entry is stored, and the staging buffers. A slot >= 0 is an index in the
// column-major part (ELL's, SELL's or DIA's values), a slot < 0 the index -slot - 1 in the CSR-like
// part. Slots are 32-bit unless a part has 2^31 - 1 elements or more (or `force_wide`, for tests).
// Device memory: 4 (8) bytes per entry for the slots, and `chunk` values of staging (at most 32 MiB):
// a fresh buffer per update cost PoCL 70-115 ms of allocation for 15 MB.
struct DeviceSlots {
  cl::Buffer slots;
  bool wide = false;
  std::size_t count = 0;
  std::size_t chunk = 0;             // entries uploaded and scattered at a time
  cl::Buffer staging, staging_tail;  // `chunk` doubles, or quasi-double's two float halves
};
constexpr std::size_t kScatterChunk = std::size_t{1} << 22;
DeviceSlots upload_slots(Context& context, const std::vector<std::int64_t>& slots, bool force_wide,
                         std::size_t chunk = kScatterChunk);

// One array of values in the device's widest precision: doubles (`primary`) on a device with fp64,
// else quasi-double's head (`primary`) and tail.
struct ValueBuffers {
  cl::Buffer primary, tail;
};

// column_major[slot] or csr_like[-slot - 1] = values[k] for every entry k: in double on a device with
// fp64, else split on the host into quasi-double's halves, both scattered. A part the format does not
// have may be a null buffer (no slot names it). The caller remakes the other precisions.
void scatter_values(Context& context, DeviceSlots& slots, const std::vector<double>& values,
                    const ValueBuffers& column_major, const ValueBuffers& csr_like);

}  // namespace clkr::detail
