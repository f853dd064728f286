// What the persistent CG kernel's tests share: a device Blas with chosen CG parameters, launch shapes
// that make every solve span many launches, and a short SPD system of any size.
#pragma once

#include <cmath>
#include <cstddef>

#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "solver_test_support.hpp"

namespace clkr::test {

// A device Blas whose CG parameters are `cg` (the rest as the device's defaults, or the row kernels'
// loads in groups of `row_load_group` where that is not 0).
inline Blas persistent_blas(Precision p, CgParams cg, std::size_t row_load_group = 0) {
  BlasOptions options;
  options.params = device_params(context()->info(), "off");
  options.params->cg = cg;
  if (row_load_group != 0) options.params->spmv.row_load_group = row_load_group;
  return Blas(context(), Location::Device, p, options);
}

// Small chunks, so that every solve spans many launches; a wait of about a second at a barrier before
// giving up, so that a PoCL thread descheduled by a busy machine does not abort a launch.
constexpr std::size_t kPatientSpins = std::size_t{1} << 30;
inline CgParams small_chunks(std::size_t lanes) { return CgParams{1u << 30, 64, 1, 5, lanes, kPatientSpins}; }

// Poisson shifted by 4 I on a grid of at least `rows` rows: a short solve (condition number below 3)
// however large.
inline HostCsrMatrix shifted_poisson(double rows) {
  const int grid = static_cast<int>(std::ceil(std::sqrt(rows))) + 1;
  HostCsrMatrix shifted = poisson2d(grid);
  for (std::int32_t i = 0; i < shifted.rows; ++i)
    for (std::int64_t k = shifted.row_offsets[i]; k < shifted.row_offsets[i + 1]; ++k)
      if (shifted.col_indices[k] == i) shifted.values[k] += 4.0;
  return shifted;
}
constexpr double kShiftedKappa = 12.0 / 4.0;  // the spectrum of poisson2d + 4 I lies in (4, 12)

}  // namespace clkr::test
