// The prolongators of smoothed aggregation on the device (prolongator.cl), for one near-null-space
// vector B per level (block size 1: the constant on the finest level, each aggregate's norm of it on
// the next): the tentative prolongator (B on each aggregate, normalised, one entry per aggregated
// node) and P = (I - omega D_F^-1 A_F) P_tent, omega = relaxation * (4/3) / rho(D_F^-1 A_F) with rho
// Gershgorin's bound, as the host's tentative_prolongator and smooth_prolongator compute them.
#pragma once

#include <memory>

#include "clkr/data/matrix.hpp"
#include "device_aggregation.hpp"

namespace clkr::detail::amg {

struct DeviceTentative {
  std::shared_ptr<Matrix> P;  // nodes x aggregates; rows of left-out nodes are empty
  cl::Buffer coarse_B;        // per aggregate: ||B on it||, the coarse level's B
};

DeviceTentative device_tentative(const SetupKernels& kernels, const DeviceAggregates& aggregates, std::int32_t nodes,
                                 const cl::Buffer& B);

struct DeviceSmoothed {
  std::shared_ptr<Matrix> P;
  double rho = 0, omega = 0;
};

DeviceSmoothed device_smoothed(const SetupKernels& kernels, Matrix& filtered, Matrix& tentative, double relaxation);

// P's values recomputed from A_F's new values on P's pattern (the update step's re-smoothing).
void resmooth(const SetupKernels& kernels, Matrix& filtered, Matrix& tentative, double relaxation,
              DeviceSmoothed& smoothed);

}  // namespace clkr::detail::amg
