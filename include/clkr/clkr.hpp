// The whole public API of clkr in one include.
#pragma once

#include "clkr/blas/blas.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/data/csr_arrays.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/precision.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/kernel_sources.hpp"
#include "clkr/runtime/program_cache.hpp"
#include "clkr/solver/solve.hpp"
#include "clkr/solver/solve_many.hpp"
