// Small text helpers shared by the option parsers and the device checks (vendor names, option values).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace clkr::detail {

// `text` in ASCII lower case: option values and vendor strings are compared case-insensitively.
inline std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace clkr::detail
