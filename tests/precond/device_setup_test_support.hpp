// Shared by the tests of the device AMG setup's kernels: the launch shapes to run them with (the
// device's defaults, and tiny capacities that push rows onto the long-row and global-memory paths),
// and transfers (the random matrices with long rows they need: test::random_sparse).
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
  GalerkinParams galerkin;
};

// The device's defaults; work-groups of 16 with every capacity at its smallest (short rows of 4
// entries, local hash tables and sorts of 64 slots: rows past 32 products use global hash tables, rows
// past 64 entries heapsort) and up to 4 work-items sharing a row of a product's values; one work-item
// per group.
inline std::vector<SetupShape> setup_shapes() {
  const DeviceParams device = device_params(amg_context()->info());
  AmgSetupParams tiny = device.amg_setup;
  tiny.work_group_size = 16;
  tiny.groups_per_compute_unit = 3;
  tiny.short_row = 4;
  tiny.hash_capacity = 64;
  tiny.sort_capacity = 64;
  AmgSetupParams single = tiny;
  single.work_group_size = 1;
  return {{"defaults", device.amg_setup, device.galerkin},
          {"tiny", tiny, GalerkinParams{16, 4}},
          {"one_item", single, GalerkinParams{1, 1}}};
}

inline detail::amg::SetupKernels setup_kernels(const SetupShape& shape) {
  return detail::amg::SetupKernels(amg_context(), shape.params, shape.galerkin);
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
