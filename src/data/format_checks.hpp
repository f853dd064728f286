// Internal to src/data: the refusals of Matrix's formats (padding past the fill limits, indices past
// 32 bits, buffers past the device's largest allocation), checked before any array is built.
#pragma once

#include "clkr/data/csr_view.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/runtime/device_info.hpp"
#include "matrix_formats.hpp"

namespace clkr::detail {

// The shape of `format` for A (whose statistics are `stats`) on `device` with `options`; throws
// clkr::Error naming the matrix, what does not fit and what to use instead when it cannot be stored.
FormatShape checked_shape(const CsrView& A, Format format, const MatrixStats& stats, const MatrixOptions& options,
                          const DeviceInfo& device);

// "CSR", "DIA": a format's name in messages and buffer names.
std::string upper_name(Format format);

}  // namespace clkr::detail
