// "1.23e-04": short scientific notation for numbers in messages, shared by every level.
#pragma once

#include <cstdio>
#include <string>

namespace clkr::detail {

inline std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace clkr::detail
