// Internal to src/data: the values of Matrix::update_values on their way to the device. The host
// path it replaces built a format's layout on the host (zero-filled staging arrays as large as the
// padded storage, filled, then uploaded whole from pageable memory): on the H200 machine 68-88 ms for
// poisson3d:128 in DIA and 726-732 ms for poisson3d:256, a GPU time step's largest cost. Here the values
// go up in CSR order (the bytes the caller holds) through pinned memory, straight into CSR's values,
// or for another format into a device staging buffer from which a kernel puts each where the format
// keeps it (kernels/data/scatter_values.cl). docs/performance-amg-host.md has the measurements.
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

constexpr std::size_t kUploadChunk = std::size_t{1} << 21;

// The values move in chunks through two stages, each a mapped host buffer (pinned on GPUs: DMA reads
// it directly, where pageable memory goes through a driver copy) and, for a scatter, a device buffer:
// while one chunk's transfer (and scatter) run, the host fills the other stage. Memory: 2 x `chunk`
// values (32 MiB) pinned on the host, as much on the device for a scatter, and its slots.
class ValueUpload {
 public:
  // Entry k goes to csr_like[k]: CSR's own values.
  ValueUpload(std::shared_ptr<Context> context, std::size_t count, std::size_t chunk = kUploadChunk);
  // Entry k goes to its slot: slot >= 0 is an index in the column-major part (ELL's, SELL's or DIA's
  // values), slot < 0 the index -slot - 1 in the CSR-like part (HYB's overflow, CSR4's rows). The slots
  // live on the device, 32-bit (4 bytes per entry) unless a part has 2^31 - 1 elements or more (or
  // `force_wide`, for tests).
  ValueUpload(std::shared_ptr<Context> context, const std::vector<std::int64_t>& slots, bool force_wide,
              std::size_t chunk = kUploadChunk);
  ~ValueUpload();  // unmaps the host stages (after the transfers that read them)
  ValueUpload(const ValueUpload&) = delete;
  ValueUpload& operator=(const ValueUpload&) = delete;

  bool wide() const { return wide_; }

  // Every entry's value to its place, in double on a device with fp64, else split on the host into
  // quasi-double's halves, both moved. A part the layout does not use may be a null buffer. Returns
  // once `values` has been copied (the transfers and the scatter may still run); the caller remakes the
  // other precisions. Throws clkr::Error for a wrong count.
  void upload(const std::vector<double>& values, const ValueBuffers& column_major, const ValueBuffers& csr_like);

 private:
  struct Stage {
    cl::Buffer device, device_tail, host_buffer;
    void* host = nullptr;
    cl::Event written;  // the last transfer that read `host`
  };
  void make_stages(std::size_t chunk, bool on_device);

  std::shared_ptr<Context> context_;
  cl::Buffer slots_;  // null: CSR's identity layout
  bool wide_ = false, fp64_ = false;
  std::size_t count_ = 0, chunk_ = 0;
  Stage stages_[2];
};

}  // namespace clkr::detail
