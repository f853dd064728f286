// Internal to src/data: a matrix part's values in half precision (ValueStorage::Half): the power of two
// that scales them into binary16's range, and the binary16 copy made on the device
// (kernels/data/half_values.cl).
#pragma once

#include <cstddef>
#include <cstdint>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// Values stored as h = binary16(float(v) * 2^exponent); a kernel reads h * 2^-exponent.
struct HalfScale {
  bool fits = false;
  int exponent = 0;
};

// The rule. `largest`: the largest |value|; `floor`: the smallest magnitude that must stay a normal
// binary16 number (the smallest nonzero diagonal entry of a square matrix with a full diagonal,
// else the smallest nonzero |value|). The exponent puts `largest` in [2^14, 2^15), which no rounding
// lifts past binary16's largest finite number (65504); the values fit when `floor` then lies at or
// above 2^-14, the smallest normal number: every row's diagonal keeps 11 significant bits, and an
// entry that falls below the normal range (stored as a subnormal number or as zero) errs by at most
// 2^-25 2^-exponent, less than 2^-11 times any diagonal entry. All values zero: fits, exponent 0.
// Infinite or NaN bounds, or a scale outside float's normal range: does not fit.
HalfScale half_scale(float largest, float floor);

// The range of a part's values on the device: the largest |float(v)|, the smallest nonzero one and the
// smallest one, zeros included (each +Inf for none). `source` holds n doubles when `double_source`, else
// n floats. `partials`: the work-groups' results, allocated on the first call and kept by the caller for
// the next (an AMG update remakes every level's copy, and NVIDIA's allocations cost ~80 us each).
struct ValueRange {
  float largest = 0;
  float smallest_nonzero = 0;
  float smallest = 0;
};
ValueRange device_value_range(Context& context, const cl::Buffer& source, bool double_source, std::size_t n,
                              cl::Buffer& partials);

// min over the square matrix's rows of |float(values[diagonal_entry[i]])|, 0 where a row has no
// diagonal entry (-1), on the device: the half floor of a diagonal that is not on the host. `values`
// holds the CSR doubles; `gathered` (rows doubles) and `partials` are kept by the caller as above.
double device_smallest_diagonal(Context& context, std::int32_t rows, const cl::Buffer& values,
                                const cl::Buffer& diagonal_entry, cl::Buffer& gathered, cl::Buffer& partials);

// half[k] = binary16(float(source[k]) * 2^exponent), rounded to nearest even, for n values; `half` holds
// at least n 2-byte elements.
void device_half_values(Context& context, const cl::Buffer& source, bool double_source, const cl::Buffer& half,
                        std::size_t n, int exponent);

}  // namespace clkr::detail
