// A's ELL and CSR parts (and DIA's diagonals) as kernel arguments, null where the format has no such part.
#include "any_format_args.hpp"

#include "clkr/runtime/error.hpp"

namespace clkr::detail {

void add_any_format_args(KernelArgs& args, Matrix& A) {
  const bool ell = A.format() == Format::Ell || A.format() == Format::Hyb;
  const bool csr = A.format() != Format::Ell;
  if (ell) {
    args.value(static_cast<cl_int>(A.ell_part().width))
        .value(static_cast<cl_int>(A.ell_part().pitch))
        .value(A.ell_part().col_indices)
        .value(A.ell_values(Precision::Double).primary);
  } else {
    args.value(cl_int{0}).value(cl_int{0}).value(cl::Buffer()).value(cl::Buffer());
  }
  // HYB with no overflow entries still has a (small) CSR part: the kernels' loops just find empty rows.
  if (csr) {
    args.value(A.csr_part().row_offsets).value(A.csr_part().col_indices).value(A.csr_values(Precision::Double).primary);
  } else {
    args.value(cl::Buffer()).value(cl::Buffer()).value(cl::Buffer());
  }
}

void add_any_format_or_dia_args(KernelArgs& args, Matrix& A) {
  if (A.format() == Format::Sell) throw Error("add_any_format_or_dia_args: SELL is not read by these kernels");
  if (A.format() == Format::Dia) {
    args.value(cl_int{0}).value(cl_int{0}).value(cl::Buffer()).value(cl::Buffer());
    args.value(cl::Buffer()).value(cl::Buffer()).value(cl::Buffer());
    args.value(static_cast<cl_int>(A.dia_part().diagonals))
        .value(static_cast<cl_int>(A.dia_part().pitch))
        .value(A.dia_part().offsets)
        .value(A.dia_values(Precision::Double).primary);
  } else {
    add_any_format_args(args, A);
    args.value(cl_int{0}).value(cl_int{0}).value(cl::Buffer()).value(cl::Buffer());
  }
}

}  // namespace clkr::detail
