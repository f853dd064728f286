// The storage format a solve should use on a device, from the matrix's row-length statistics (the
// one place this is decided: `clkr solve --format auto`, the C API's and Python's "auto").
#pragma once

#include <string>

#include "clkr/data/matrix.hpp"
#include "clkr/runtime/device_info.hpp"

namespace clkr {

struct FormatChoice {
  Format format;
  std::string reason;  // one line: why this format, for the report
};

// The format for `stats` on `device`; persistent_cg: the solver is CG without a preconditioner or with
// Jacobi (which runs as one persistent kernel on CSR or DIA where the device's parameters allow it).
FormatChoice choose_format(const MatrixStats& stats, const DeviceInfo& device, bool persistent_cg = false);

// "auto" (choose_format for a solver other than plain CG) or a Format's name (parse_format).
Format format_named(const std::string& name, const MatrixStats& stats, const DeviceInfo& device);

}  // namespace clkr
