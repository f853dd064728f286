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

// `a` read back from the device against what was written, `b`: the pattern exactly, the values bit for
// bit with fp64 and to the quasi-double read-back tolerance without (precision_support.hpp).
inline void expect_same(const HostCsrMatrix& a, const HostCsrMatrix& b, const std::string& what) {
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.row_offsets, b.row_offsets) << what;
  EXPECT_EQ(a.col_indices, b.col_indices) << what;
  ASSERT_EQ(a.values.size(), b.values.size()) << what;
  for (std::size_t k = 0; k < a.values.size(); ++k)
    ASSERT_TRUE(readback_equal(*context(), a.values[k], b.values[k])) << what << ": value " << k;
}

}  // namespace clkr::test
