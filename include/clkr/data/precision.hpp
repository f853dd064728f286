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

// How a matrix's values are stored on the device for kernels computing in single precision. Working:
// in single (the precision's own type, as for every precision). Half: IEEE binary16, times a power of
// two that brings every nonzero value into half's normal range, widened to float as a kernel loads it
// (kernels/common.cl, MVAL_*): 2 bytes a value instead of 4, with 11 significant bits. For operators
// that need not be exact, such as a preconditioner's (BlasOptions::matrix_values, PrecondOptions): an
// AMG V-cycle on half values takes the iterations of one on single values on the problems of
// docs/preconditioners.md, and moves fewer bytes. Values whose magnitudes span more than half's normal
// range (2^-14 to 2^15 after the scaling: a ratio of 2^29 between the largest value and the smallest
// diagonal entry, or the smallest nonzero value where the diagonal is not full) stay in single
// (Matrix::csr_values, src/data/half_values.hpp).
enum class ValueStorage { Working, Half };

// How a caller is about to use a copy: Write promises to overwrite every element, so the copy need
// not be made valid first; Write and ReadWrite invalidate every other copy.
enum class Access { Read, Write, ReadWrite };

std::string to_string(Precision p);     // "single", "qdouble", "double"
std::string to_string(Location l);      // "host", "device"
std::string to_string(ValueStorage s);  // "working", "half"
// Accepts "single"/"float"/"sp", "qdouble"/"quasi-double"/"qd", "double"/"dp"; throws clkr::Error.
Precision parse_precision(const std::string& text);
// Where a solve computes, by its interfaces' name for it, the backend: "device" (the OpenCL device) or
// "host" (the host backend), any case; throws clkr::Error for anything else.
Location parse_backend(const std::string& text);

// Bytes one element occupies in memory in this precision (4, 8, 8).
constexpr std::size_t bytes_per_element(Precision p) { return p == Precision::Single ? 4 : 8; }

// The -D options that select a precision in kernels/common.cl.
std::string precision_build_option(Precision p);

}  // namespace clkr
