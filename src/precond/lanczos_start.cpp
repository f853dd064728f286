// The Lanczos start vector: SplitMix64's finalizer of (seed, i), on the host (OpenMP) or by the kernel.
#include "lanczos_start.hpp"

#include <algorithm>

#include "../runtime/host_threads.hpp"
#include "../runtime/large_vectors.hpp"
#include "clkr/blas/kernel_args.hpp"

namespace clkr::detail {

std::vector<double> lanczos_start_values(std::size_t n, std::uint64_t seed) {
  std::vector<double> start = large_vector<double>(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    start[i] = static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
  }
  return start;
}

void fill_lanczos_start(Blas& blas, Vector& v, std::uint64_t seed) {
  const auto& context = v.context();
  const std::size_t n = v.size();
  if (blas.location() != Location::Device || !context->info().fp64 || n == 0) {
    v.assign(lanczos_start_values(n, seed));
    // The iterations on a device without fp64 come next: the fill's workers must not spin through them.
    if (blas.location() == Location::Device) release_host_threads();
    return;
  }
  cl::Kernel kernel =
      context->kernel("precond/lanczos_start.cl", "lanczos_start", precision_build_option(Precision::Double));
  KernelArgs(kernel, Precision::Double)
      .value(static_cast<cl_ulong>(n))
      .value(static_cast<cl_ulong>(seed))
      .value(v.device(Precision::Double, Access::Write).primary);
  // A grid-stride loop over as many work-items as the BLAS1 kernels use.
  const Blas1Params& p = blas.params().blas1;
  const std::size_t local = p.work_group_size;
  const std::size_t groups = std::max<std::size_t>(1, context->info().compute_units * p.groups_per_compute_unit);
  const std::size_t global = std::min(groups, (n + local - 1) / local) * local;
  context->queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
}

}  // namespace clkr::detail
