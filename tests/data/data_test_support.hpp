// Shared by the data tests: the test context, whether its device has fp64, and reading back and
// comparing what a Matrix holds on the device.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr::test {

inline std::shared_ptr<Context> context() {
  static std::shared_ptr<Context> c = Context::create();
  return c;
}

inline bool fp64() { return context()->info().fp64; }

// The first n elements of a device buffer.
template <class T>
std::vector<T> read(const cl::Buffer& buffer, std::size_t n) {
  std::vector<T> out(n);
  if (n > 0) context()->queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), out.data());
  return out;
}

}  // namespace clkr::test
