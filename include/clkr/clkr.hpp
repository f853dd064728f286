// The whole public API of clkr in one include.
#pragma once

#include "clkr/runtime/context.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/kernel_sources.hpp"
#include "clkr/runtime/program_cache.hpp"
