// What a test helper makes for a key, made once per process and kept: the parameterised tests ask for
// the same inputs (random matrices of one shape and seed, a matrix's condition estimate) once per
// kernel, precision and launch, and rebuilding them dominated the suite's time under ASan, where the
// tests compile at -O0 (2026-12-07: 21% of the BLAS tests, a fifth of the solver tests). Each call site
// (its `make` is a lambda of its own type) keeps its own table; the key holds everything the value
// depends on, compared whole (no hash), so a kept value is always the one `make` would return.
#pragma once

#include <map>
#include <mutex>
#include <utility>

namespace clkr::test {

template <class Key, class Make>
const auto& once_per_process(const Key& key, Make&& make) {
  using Value = decltype(make());
  static std::mutex mutex;
  static std::map<Key, Value> made;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = made.find(key);
  if (it == made.end()) it = made.emplace(key, std::forward<Make>(make)()).first;
  return it->second;  // std::map keeps its elements in place as others are added
}

}  // namespace clkr::test
