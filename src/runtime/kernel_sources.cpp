// Expands `#include "file.cl"` lines of the embedded kernel sources (OpenCL compilers cannot see
// our embedded files, so includes are resolved here before clCreateProgramWithSource).
#include "clkr/runtime/kernel_sources.hpp"

#include <set>
#include <sstream>

#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

void expand_into(const std::string& name, std::set<std::string>& seen, std::string& out) {
  if (!seen.insert(name).second) return;  // each file at most once, like #pragma once
  const auto& sources = embedded_kernel_sources();
  auto it = sources.find(name);
  if (it == sources.end()) throw Error("unknown kernel source '" + name + "' (not embedded from kernels/)");
  std::istringstream in{std::string(it->second)};
  std::string line;
  std::size_t number = 0;
  out += "#line 1 \"" + name + "\"\n";
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 8, "#include") == 0) {
      const auto open = line.find('"', first);
      const auto close = open == std::string::npos ? open : line.find('"', open + 1);
      if (close == std::string::npos) throw Error(name + ":" + std::to_string(number) + ": malformed #include");
      expand_into(line.substr(open + 1, close - open - 1), seen, out);
      out += "#line " + std::to_string(number + 1) + " \"" + name + "\"\n";
      continue;
    }
    out += line;
    out += '\n';
  }
}

}  // namespace

std::string expand_kernel_source(const std::string& name) {
  std::set<std::string> seen;
  std::string out;
  expand_into(name, seen, out);
  return out;
}

}  // namespace clkr
