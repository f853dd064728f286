// libFuzzer entry point: parse_matrix_market must turn any byte string into a valid matrix or a
// clkr::Error, never crash, hang, leak or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  clkr::MatrixMarketOptions options;
  // Declared sizes cost memory even without entries (8 bytes a row): bound them so that the fuzzer
  // explores the parser rather than the allocator.
  options.max_rows = 1 << 20;
  clkr::HostCsrMatrix A;
  try {
    A = clkr::parse_matrix_market(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", options);
  } catch (const clkr::Error&) {
    return 0;
  }
  // Outside the try: an accepted input that yields a malformed CSR is a bug, and the uncaught
  // exception makes libFuzzer report it.
  A.validate();
  return 0;
}
