// Matrix values in half precision: the scale rule and the device kernels' launches (see
// half_values.hpp).
#include "half_values.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../runtime/integer_math.hpp"
#include "../runtime/per_item_launch.hpp"
#include "clkr/data/precision.hpp"
#include "convert.hpp"

namespace clkr::detail {
namespace {

constexpr const char* kFile = "data/half_values.cl";

std::string source_option(bool double_source) {
  return precision_build_option(double_source ? Precision::Double : Precision::Single);
}

}  // namespace

HalfScale half_scale(float largest, float floor) {
  if (!std::isfinite(largest) || std::isnan(floor) || largest < 0) return {};
  if (largest == 0) return {true, 0};
  int binade = 0;
  std::frexp(largest, &binade);  // largest in [2^(binade - 1), 2^binade)
  const int exponent = 15 - binade;
  // 2^exponent and 2^-exponent must be normal floats for the product and the kernels' unscale.
  if (exponent < -125 || exponent > 125) return {};
  const bool fits = std::ldexp(static_cast<double>(floor), exponent) >= std::ldexp(1.0, -14);
  return {fits, exponent};
}

ValueRange device_value_range(Context& context, const cl::Buffer& source, bool double_source, std::size_t n,
                              cl::Buffer& partials) {
  ValueRange range{0, INFINITY, INFINITY};
  if (n == 0) return range;
  cl::Kernel kernel = context.kernel(kFile, "half_value_range", source_option(double_source));
  const std::size_t fits = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
  std::size_t local = 1;
  while (local * 2 <= std::min<std::size_t>(256, fits)) local *= 2;
  // A few groups per compute unit walk the array; the host reduces their triples.
  const std::size_t most = std::max<std::size_t>(context.info().compute_units, 1) * 8;
  const std::size_t groups = std::min<std::size_t>(ceil_div(n, local), most);
  if (!partials()) partials = context.allocate(3 * most * sizeof(float), "half values' range");
  kernel.setArg(0, source);
  kernel.setArg(1, static_cast<cl_ulong>(n));
  kernel.setArg(2, partials);
  for (cl_uint a = 3; a < 6; ++a) kernel.setArg(a, cl::Local(local * sizeof(float)));
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local));
  std::vector<float> triples(3 * groups);
  read_buffer(context, partials, triples.data(), triples.size());
  for (std::size_t g = 0; g < groups; ++g) {
    range.largest = std::max(range.largest, triples[3 * g]);
    range.smallest_nonzero = std::min(range.smallest_nonzero, triples[3 * g + 1]);
    range.smallest = std::min(range.smallest, triples[3 * g + 2]);
  }
  return range;
}

double device_smallest_diagonal(Context& context, std::int32_t rows, const cl::Buffer& values,
                                const cl::Buffer& diagonal_entry, cl::Buffer& gathered, cl::Buffer& partials) {
  if (rows <= 0) return INFINITY;
  const auto n = static_cast<std::size_t>(rows);
  if (!gathered()) gathered = context.allocate(n * sizeof(double), "matrix diagonal (half floor)");
  device_gather(context, values, diagonal_entry, gathered, n);
  return device_value_range(context, gathered, true, n, partials).smallest;
}

void device_half_values(Context& context, const cl::Buffer& source, bool double_source, const cl::Buffer& half,
                        std::size_t n, int exponent) {
  if (n == 0) return;
  cl::Kernel kernel = context.kernel(kFile, "half_values", source_option(double_source));
  kernel.setArg(0, source);
  kernel.setArg(1, half);
  kernel.setArg(2, static_cast<cl_ulong>(n));
  kernel.setArg(3, static_cast<cl_float>(std::ldexp(1.0f, exponent)));
  enqueue_per_item(context, kernel, n);
}

}  // namespace clkr::detail
