// Host memory that a non-blocking read lands in, kept valid until the read has landed.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// A non-blocking read writes its host memory after the call that enqueued it has returned. When an
// exception leaves the caller's scope between the enqueue and the wait that would collect the read (a
// later command failing, a refusal), that memory is freed while the device may still write into it:
// on NVIDIA's driver the heap was corrupted so (tests/stress/faults_test.cpp's CommandFault test,
// 2026-11-29). A PendingRead owns the memory and waits for its read before letting it go.
class PendingRead {
 public:
  PendingRead() = default;
  PendingRead(PendingRead&& other) noexcept;
  PendingRead& operator=(PendingRead&& other) noexcept;
  PendingRead(const PendingRead&) = delete;
  PendingRead& operator=(const PendingRead&) = delete;
  ~PendingRead();

  // Enqueues a non-blocking read of the first `bytes` of `buffer` (an earlier read is waited for first).
  void enqueue(Context& context, const cl::Buffer& buffer, std::size_t bytes);
  // The bytes read, after waiting for the read's event (no wait left when the caller has waited for the
  // queue: Context::finish, which CommandCounts counts, is how callers collect a batch of reads).
  const std::vector<unsigned char>& bytes();
  template <class T>
  T at(std::size_t k) {
    T value;
    std::memcpy(&value, bytes().data() + k * sizeof(T), sizeof(T));
    return value;
  }

 private:
  void wait_quietly() noexcept;

  std::vector<unsigned char> bytes_;
  cl::Event landed_;
};

}  // namespace clkr::detail
