// The finest operator in plain CSR on the device, for the setup's kernels, which read CSR: the matrix
// itself when it is stored in CSR, else a copy made by csr_view.cl from its CSR4, ELL, HYB, SELL or DIA arrays
// (no trip through the host; the V-cycle keeps multiplying by the matrix in its own format).
#pragma once

#include <memory>

#include "clkr/data/matrix.hpp"
#include "device_setup_kernels.hpp"

namespace clkr::detail::amg {

// A CSR copy of A (A in another format than CSR).
std::shared_ptr<Matrix> csr_copy(const SetupKernels& kernels, Matrix& A);
// The copy's values from A's new values on the same pattern.
void refresh_csr_copy(const SetupKernels& kernels, Matrix& A, Matrix& copy);

}  // namespace clkr::detail::amg
