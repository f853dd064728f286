// Internal to src/data: Matrix::update_values in a format other than CSR, on the device. The host
// scatter it replaces zero-filled staging arrays as large as the format's padded storage, filled them
// and uploaded them whole: on the H200 machine 68-85 ms for poisson3d:128 in DIA and 725-732 ms for
// poisson3d:256, a GPU time step's largest cost. Here the values go up in CSR order (the bytes the
// caller holds) and a kernel puts each where the format keeps it (kernels/data/scatter_values.cl).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// One array of values in the device's widest precision: doubles (`primary`) on a device with fp64,
// else quasi-double's head (`primary`) and tail.
struct ValueBuffers {
  cl::Buffer primary, tail;
};

constexpr std::size_t kScatterChunk = std::size_t{1} << 21;

// Where each CSR entry of a matrix is stored, on the device, and the staging its updates go through.
// A slot >= 0 is an index in the column-major part (ELL's, SELL's or DIA's values), a slot < 0 the
// index -slot - 1 in the CSR-like part. Slots are 32-bit unless a part has 2^31 - 1 elements or more
// (or `force_wide`, for tests). The values move in chunks through two stages, each a mapped host
// buffer (pinned on GPUs: DMA reads it directly, where pageable memory goes through a driver copy)
// and a device buffer: while one chunk's transfer and scatter run, the host fills the other stage.
// Memory: the slots (4 or 8 bytes per entry) and 2 x `chunk` values (32 MiB) on the device and as much
// pinned on the host.
class ValueScatter {
 public:
  ValueScatter(std::shared_ptr<Context> context, const std::vector<std::int64_t>& slots, bool force_wide,
               std::size_t chunk = kScatterChunk);
  ~ValueScatter();  // unmaps the host stages (after the transfers that read them)
  ValueScatter(const ValueScatter&) = delete;
  ValueScatter& operator=(const ValueScatter&) = delete;

  bool wide() const { return wide_; }

  // column_major[slot] or csr_like[-slot - 1] = values[k] for every entry k: in double on a device with
  // fp64, else split on the host into quasi-double's halves, both scattered. A part the format does not
  // have may be a null buffer (no slot names it). Returns when `values` has been copied (the scatter
  // may still run); the caller remakes the other precisions. Throws clkr::Error for a wrong count.
  void scatter(const std::vector<double>& values, const ValueBuffers& column_major, const ValueBuffers& csr_like);

 private:
  struct Stage {
    cl::Buffer device, device_tail, host_buffer;
    void* host = nullptr;
    cl::Event written;  // the last transfer that read `host`
  };
  std::shared_ptr<Context> context_;
  cl::Buffer slots_;
  bool wide_ = false, fp64_ = false;
  std::size_t count_ = 0, chunk_ = 0;
  Stage stages_[2];
};

}  // namespace clkr::detail
