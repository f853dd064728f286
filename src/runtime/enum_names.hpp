// The names of option enums (SolverKind, RefinementScheme, CgPath, PrecondKind, ...): one table of
// (value, name) pairs per enum, read both ways by these two functions.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "clkr/runtime/error.hpp"
#include "text.hpp"

namespace clkr::detail {

template <class Enum, std::size_t N>
using NameTable = std::pair<Enum, const char*>[N];

// The name of `value`; throws clkr::Error "unknown <type> <number>" for a value outside the table.
template <class Enum, std::size_t N>
std::string enum_name(const NameTable<Enum, N>& table, Enum value, const char* type) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  throw Error(std::string("unknown ") + type + " " + std::to_string(static_cast<int>(value)));
}

// The value named `text` (case-insensitive); throws clkr::Error "unknown <what> '<text>' (expected one
// of: ...)" listing the names.
template <class Enum, std::size_t N>
Enum parse_enum_name(const NameTable<Enum, N>& table, const std::string& text, const char* what) {
  const std::string name = to_lower(text);
  std::string known;
  for (const auto& [v, v_name] : table) {
    if (name == v_name) return v;
    known += known.empty() ? v_name : std::string(", ") + v_name;
  }
  throw Error(std::string("unknown ") + what + " '" + text + "' (expected one of: " + known + ")");
}

}  // namespace clkr::detail
