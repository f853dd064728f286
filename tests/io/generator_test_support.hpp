// Shared by the generator tests: an entry of a generated matrix, and the malformed specs that
// load_matrix must refuse with a clkr::Error whose message holds the given words.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::test {

// A(i, j), 0 where the pattern has no entry.
inline double entry(const HostCsrMatrix& A, std::int64_t i, std::int32_t j) {
  for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
    if (A.col_indices[k] == j) return A.values[k];
  return 0;
}

inline void expect_spec_errors(const std::map<std::string, std::string>& bad) {
  for (const auto& [spec, words] : bad) {
    try {
      load_matrix(spec);
      ADD_FAILURE() << spec << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << spec << ": " << e.what();
    }
  }
}

}  // namespace clkr::test
