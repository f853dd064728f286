// The three precisions clkr computes in and the two places data can live.
#pragma once

#include <cstddef>
#include <string>

namespace clkr {

// Single: float. QuasiDouble: an unevaluated float pair (head + tail, ~48 significant bits) stored as
// two float arrays, head = float(d), tail = float(d - head); the head array *is* the single copy.
// Double: IEEE double (needs a device with fp64).
enum class Precision { Single, QuasiDouble, Double };

enum class Location { Host, Device };

// How a caller is about to use a copy: Write promises to overwrite every element, so the copy need
// not be made valid first; Write and ReadWrite invalidate every other copy.
enum class Access { Read, Write, ReadWrite };

std::string to_string(Precision p);  // "single", "qdouble", "double"
std::string to_string(Location l);   // "host", "device"
// Accepts "single"/"float"/"sp", "qdouble"/"quasi-double"/"qd", "double"/"dp"; throws clkr::Error.
Precision parse_precision(const std::string& text);

// Bytes one element occupies in memory in this precision (4, 8, 8).
constexpr std::size_t bytes_per_element(Precision p) { return p == Precision::Single ? 4 : 8; }

// The -D options that select a precision in kernels/common.cl.
std::string precision_build_option(Precision p);

}  // namespace clkr
