// The launches of csr_view.cl: row lengths, their prefix sum, the entries.
#include "device_csr_view.hpp"

#include "device_scan.hpp"

namespace clkr::detail::amg {
namespace {

// The index of the first argument after the matrix's (set_format_args).
constexpr cl_uint kOutputArgs = 14;

// Sets `kernel`'s first arguments: the row count, A's column-major part (ELL's, SELL's or DIA's values)
// and CSR part (absent ones as width 0 or null buffers), SELL's slices and row order (null unless
// SELL), and DIA's offsets and presence bits (null unless DIA; its pitch is the ELL pitch's argument).
void set_format_args(cl::Kernel& kernel, Matrix& A) {
  const bool sell = A.format() == Format::Sell;
  const bool dia = A.format() == Format::Dia;
  const bool ell = A.format() == Format::Ell || A.format() == Format::Hyb;
  const bool csr = A.format() != Format::Ell && !sell && !dia;
  const cl_int width = ell ? A.ell_part().width : 0;
  const cl_int pitch = ell ? A.ell_part().pitch : dia ? A.dia_part().pitch : 0;
  const cl::Buffer none;
  const cl::Buffer columns = ell ? A.ell_part().col_indices : sell ? A.sell_part().col_indices : none;
  const cl::Buffer values = ell    ? A.ell_values(Precision::Double).primary
                            : sell ? A.sell_values(Precision::Double).primary
                            : dia  ? A.dia_values(Precision::Double).primary
                                   : none;
  set_args(kernel, static_cast<cl_int>(A.rows()), width, pitch, columns, values, csr ? A.csr_part().row_offsets : none,
           csr ? A.csr_part().col_indices : none, csr ? A.csr_values(Precision::Double).primary : none,
           sell ? A.sell_part().slice_offsets : none, sell ? A.sell_part().rows : none,
           static_cast<cl_int>(sell ? A.sell_part().slice_height : 1), dia ? A.dia_part().offsets : none,
           dia ? A.dia_part().present : none, static_cast<cl_int>(dia ? A.dia_part().diagonals : 0));
}

// Writes A's entries into the copy's arrays at `offsets`.
void fill(const SetupKernels& kernels, Matrix& A, const cl::Buffer& offsets, const cl::Buffer& cols,
          const cl::Buffer& values) {
  cl::Kernel kernel = kernels.kernel("csr_view.cl", "csr_view_fill");
  set_format_args(kernel, A);
  kernel.setArg(kOutputArgs, offsets);
  kernel.setArg(kOutputArgs + 1, cols);
  kernel.setArg(kOutputArgs + 2, values);
  kernels.per_item(kernel, static_cast<std::size_t>(A.rows()));
}

}  // namespace

std::shared_ptr<Matrix> csr_copy(const SetupKernels& kernels, Matrix& A) {
  const auto rows = static_cast<std::size_t>(A.rows());
  cl::Buffer offsets = kernels.array<cl_int>(rows + 1, "CSR copy row offsets");
  cl::Kernel lengths = kernels.kernel("csr_view.cl", "csr_view_lengths");
  set_format_args(lengths, A);
  lengths.setArg(kOutputArgs, offsets);
  kernels.per_item(lengths, rows);
  const std::int32_t nnz = exclusive_scan(kernels, offsets, A.rows(), "the CSR copy of A");
  cl::Buffer cols = kernels.array<cl_int>(static_cast<std::size_t>(nnz), "CSR copy columns");
  cl::Buffer values = kernels.array<cl_double>(static_cast<std::size_t>(nnz), "CSR copy values");
  fill(kernels, A, offsets, cols, values);
  return std::make_shared<Matrix>(
      Matrix::from_device_csr(kernels.shared_context(), A.rows(), A.cols(), nnz, offsets, cols, values));
}

void refresh_csr_copy(const SetupKernels& kernels, Matrix& A, Matrix& copy) {
  fill(kernels, A, copy.csr_part().row_offsets, copy.csr_part().col_indices,
       copy.csr_values(Precision::Double).primary);
  copy.values_written_on_device();
}

}  // namespace clkr::detail::amg
