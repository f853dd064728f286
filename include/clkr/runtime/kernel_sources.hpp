// The OpenCL C sources of kernels/ embedded into the library at build time (see cmake/embed_kernels.cmake).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace clkr {

// Every embedded kernel file, keyed by its path relative to kernels/ ("blas1/axpy.cl").
const std::map<std::string, std::string_view>& embedded_kernel_sources();

// The source of `name` with every `#include "other.cl"` line replaced by that file's source
// (recursively, each file at most once), ready for clCreateProgramWithSource.
// Throws clkr::Error when a file is unknown.
std::string expand_kernel_source(const std::string& name);

}  // namespace clkr
