// Strength of connection on the device (strength.cl), one unknown per node: the strength graph S that
// aggregation follows and the filtered matrix A_F that smooths the prolongator, as the host's
// strength_of_connection and smooth_prolongator make them.
#pragma once

#include <cstdint>
#include <memory>

#include "clkr/data/matrix.hpp"
#include "device_setup_kernels.hpp"
#include "device_transpose.hpp"

namespace clkr::detail::amg {

struct DeviceStrength {
  DevicePattern graph;               // S: strong neighbours of each node (itself excluded), ascending
  cl::Buffer weights;                // per edge of S: (|a_ij| / sqrt|a_ii a_jj|)^2
  cl::Buffer keep;                   // per stored entry of A: 1 when A_F keeps it (uchar)
  std::shared_ptr<Matrix> filtered;  // A_F: A's kept entries, the others lumped onto the diagonal
};

// S and A_F for A (in CSR) with threshold eps.
DeviceStrength device_strength(const SetupKernels& kernels, Matrix& A, double eps);

// A_F's values from A's new values on the kept pattern (the update step, when it re-smooths P).
void refresh_filtered(const SetupKernels& kernels, Matrix& A, const cl::Buffer& keep, Matrix& filtered);

}  // namespace clkr::detail::amg
