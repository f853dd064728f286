// The seeded pseudo-random start vector of the Lanczos runs (spectrum.cpp): the same values on the host
// and on a device (kernels/precond/lanczos_start.cl), made where the run takes place.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/blas/blas.hpp"

namespace clkr::detail {

// Element i: a hash of (seed, i), uniform in [-0.5, 0.5); the same whatever the thread count.
std::vector<double> lanczos_start_values(std::size_t n, std::uint64_t seed);

// Those values into `v`: written by a kernel where `blas` runs on a device with fp64 (v's double device
// copy; nothing crosses the bus), else assigned from the host.
void fill_lanczos_start(Blas& blas, Vector& v, std::uint64_t seed);

}  // namespace clkr::detail
