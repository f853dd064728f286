// Launch of galerkin_multiply: LANES work-items per row of C, chosen from B's row lengths.
#include "device_galerkin.hpp"

#include <algorithm>
#include <string>

#include "../any_format_args.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {

std::size_t galerkin_lanes(const Matrix& B, const GalerkinParams& params) {
  const double mean = B.rows() > 0 ? static_cast<double>(B.nnz()) / B.rows() : 0.0;
  std::size_t lanes = 1;
  while (lanes < params.max_lanes && static_cast<double>(lanes) < mean) lanes *= 2;
  return lanes;
}

cl::Event multiply_on_device(Matrix& A, Matrix& B, Matrix& C, const GalerkinParams& params) {
  Context& context = *C.context();
  if (!context.info().fp64) throw Error("amg: the device update of the Galerkin products needs fp64");
  if (B.format() != Format::Csr || C.format() != Format::Csr)
    throw Error("amg: the device Galerkin product takes B and C in CSR");
  std::size_t local = params.work_group_size;  // a power of two (validate_device_params)
  while (local > 1 && local > context.info().max_work_group_size) local /= 2;
  const std::size_t lanes = std::min(galerkin_lanes(B, params), local);
  cl::Kernel kernel = context.kernel("precond/galerkin.cl", "galerkin_multiply",
                                     precision_build_option(Precision::Double) + " -DWG=" + std::to_string(local) +
                                         " -DLANES=" + std::to_string(lanes));
  KernelArgs args(kernel, Precision::Double);
  args.value(static_cast<cl_int>(C.rows())).value(static_cast<cl_int>(B.rows()));
  add_any_format_or_dia_args(args, A);
  args.value(B.csr_part().row_offsets).value(B.csr_part().col_indices).value(B.csr_values(Precision::Double).primary);
  args.value(C.csr_part().row_offsets).value(C.csr_part().col_indices).value(C.csr_values(Precision::Double).primary);
  const std::size_t rows = static_cast<std::size_t>(C.rows());
  cl::Event event;
  if (rows == 0) return event;
  const std::size_t rows_per_group = local / lanes;
  const std::size_t groups = (rows + rows_per_group - 1) / rows_per_group;
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local), nullptr,
                                       &event);
  return event;
}

}  // namespace clkr::detail::amg
