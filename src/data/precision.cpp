// Names of precisions and locations, and the build option that selects a precision in common.cl.
#include "clkr/data/precision.hpp"

#include "../runtime/text.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {

std::string to_string(Precision p) {
  switch (p) {
    case Precision::Single:
      return "single";
    case Precision::QuasiDouble:
      return "qdouble";
    case Precision::Double:
      return "double";
  }
  throw Error("invalid Precision value " + std::to_string(static_cast<int>(p)));
}

std::string to_string(Location l) {
  switch (l) {
    case Location::Host:
      return "host";
    case Location::Device:
      return "device";
  }
  throw Error("invalid Location value " + std::to_string(static_cast<int>(l)));
}

std::string to_string(ValueStorage s) {
  switch (s) {
    case ValueStorage::Working:
      return "working";
    case ValueStorage::Half:
      return "half";
  }
  throw Error("invalid ValueStorage value " + std::to_string(static_cast<int>(s)));
}

Precision parse_precision(const std::string& text) {
  const std::string t = detail::to_lower(text);
  if (t == "single" || t == "float" || t == "sp") return Precision::Single;
  if (t == "qdouble" || t == "quasi-double" || t == "qd") return Precision::QuasiDouble;
  if (t == "double" || t == "dp") return Precision::Double;
  throw Error("unknown precision '" + text + "' (expected single/float/sp, qdouble/quasi-double/qd or double/dp)");
}

Location parse_backend(const std::string& text) {
  const std::string t = detail::to_lower(text);
  if (t == "device") return Location::Device;
  if (t == "host") return Location::Host;
  throw Error("unknown backend '" + text + "' (expected device or host)");
}

std::string precision_build_option(Precision p) {
  switch (p) {
    case Precision::Single:
      return "-DCLKR_SINGLE";
    case Precision::QuasiDouble:
      return "-DCLKR_QDOUBLE";
    case Precision::Double:
      return "-DCLKR_DOUBLE";
  }
  throw Error("invalid Precision value " + std::to_string(static_cast<int>(p)));
}

}  // namespace clkr
