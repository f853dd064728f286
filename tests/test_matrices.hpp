// Where the tests find Matrix Market files: the source tree's matrices/ (bundled) and ../shared/matrices
// (the SuiteSparse collection of the development machine). A file may also stand there gzip-compressed
// (file + ".gz", which read_matrix_market reads as well): the GPU machine's carry holds the collection so,
// as it fits the device tool's 64 MiB only compressed (docs/devices.md).
#pragma once

#include <fstream>
#include <string>

namespace clkr::test {

// The readable path of `file` in `dir` (which ends in '/'), or of its compressed copy; empty when neither is there.
inline std::string existing_matrix_file(const std::string& dir, const std::string& file) {
  for (const std::string& candidate : {dir + file, dir + file + ".gz"})
    if (std::ifstream(candidate).good()) return candidate;
  return "";
}

#ifdef CLKR_SOURCE_DIR
// The path of a matrix file in matrices/ or ../shared/matrices/; empty when neither has it (callers skip).
inline std::string matrix_path(const std::string& file) {
  for (const std::string& dir :
       {std::string(CLKR_SOURCE_DIR) + "/matrices/", std::string(CLKR_SOURCE_DIR) + "/../shared/matrices/"})
    if (std::string path = existing_matrix_file(dir, file); !path.empty()) return path;
  return "";
}
#endif

}  // namespace clkr::test
