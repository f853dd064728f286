// Shared by the tests of the device AMG setup's kernels: the launch shapes to run them with (the
// device's defaults, and tiny capacities that push rows onto the long-row and global-memory paths),
// random sparse matrices with the awkward rows those paths need, and transfers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "amg_test_support.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/data/matrix.hpp"
#include "precond/amg/device_setup_kernels.hpp"

namespace clkr::test {

// A launch shape and its name for test output.
struct SetupShape {
  std::string name;
  AmgSetupParams params;
};

// The device's defaults; work-groups of 16 with every capacity at its smallest (short rows of 4
// entries, local hash tables and sorts of 64 slots: rows past 32 products use global hash tables, rows
// past 64 entries heapsort); one work-item per group.
inline std::vector<SetupShape> setup_shapes() {
  const AmgSetupParams defaults = device_params(amg_context()->info()).amg_setup;
  AmgSetupParams tiny = defaults;
  tiny.work_group_size = 16;
  tiny.groups_per_compute_unit = 3;
  tiny.short_row = 4;
  tiny.hash_capacity = 64;
  tiny.sort_capacity = 64;
  AmgSetupParams single = tiny;
  single.work_group_size = 1;
  return {{"defaults", defaults}, {"tiny", tiny}, {"one_item", single}};
}

inline detail::amg::SetupKernels setup_kernels(const SetupShape& shape) {
  return detail::amg::SetupKernels(amg_context(), shape.params);
}

// A random rows x cols matrix: up to `per_row` entries a row, every 7th row empty, row 1 (when there
// is one) long: `long_row` entries spread over the columns; column 0 in every third row (a long
// column: a long row of the transpose); values in [-1, 1], one in ten an explicit zero.
inline HostCsrMatrix awkward_sparse(std::int32_t rows, std::int32_t cols, int per_row, int long_row, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    std::set<std::int32_t> columns;
    if (i % 7 != 3 && cols > 0) {
      const int count = i == 1 ? long_row : static_cast<int>(rng() % (per_row + 1));
      for (int c = 0; c < count; ++c) columns.insert(static_cast<std::int32_t>(rng() % cols));
      if (i % 3 == 0) columns.insert(0);
    }
    for (std::int32_t j : columns) {
      A.col_indices.push_back(j);
      A.values.push_back(rng() % 10 == 0 ? 0.0 : u(rng));
    }
    A.row_offsets.push_back(static_cast<std::int32_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

template <class T>
std::vector<T> read_array(const cl::Buffer& buffer, std::size_t n) {
  std::vector<T> host(n);
  if (n > 0) amg_context()->queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), host.data());
  return host;
}

template <class T>
cl::Buffer device_array(const std::vector<T>& host) {
  cl::Buffer buffer = amg_context()->allocate(std::max<std::size_t>(1, host.size()) * sizeof(T), "test array");
  if (!host.empty())
    amg_context()->queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, host.size() * sizeof(T), host.data());
  return buffer;
}

}  // namespace clkr::test
