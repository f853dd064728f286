#include "pending_read.hpp"

#include <utility>

namespace clkr::detail {

PendingRead::PendingRead(PendingRead&& other) noexcept
    : bytes_(std::move(other.bytes_)), landed_(std::exchange(other.landed_, cl::Event())) {}

PendingRead& PendingRead::operator=(PendingRead&& other) noexcept {
  if (this != &other) {
    wait_quietly();
    bytes_ = std::move(other.bytes_);
    landed_ = std::exchange(other.landed_, cl::Event());
  }
  return *this;
}

PendingRead::~PendingRead() { wait_quietly(); }

// Waits for the read in flight, if any; a failed wait (the read itself failed) leaves nothing to wait for.
void PendingRead::wait_quietly() noexcept {
  if (landed_() == nullptr) return;
  try {
    landed_.wait();
  } catch (...) {
  }
  landed_ = cl::Event();
}

void PendingRead::enqueue(Context& context, const cl::Buffer& buffer, std::size_t bytes) {
  wait_quietly();
  bytes_.resize(bytes);
  if (bytes == 0) return;
  cl::Event landed;
  context.queue().enqueueReadBuffer(buffer, CL_FALSE, 0, bytes, bytes_.data(), nullptr, &landed);
  landed_ = std::move(landed);
}

const std::vector<unsigned char>& PendingRead::bytes() {
  if (landed_() != nullptr) {
    landed_.wait();
    landed_ = cl::Event();
  }
  return bytes_;
}

}  // namespace clkr::detail
