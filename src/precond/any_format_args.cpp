// A's ELL and CSR parts as kernel arguments, null where the format has no such part.
#include "any_format_args.hpp"

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

}  // namespace clkr::detail
