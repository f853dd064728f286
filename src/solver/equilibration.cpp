#include "equilibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

// The largest value kept within [2^-40, 2^40]: a CG step multiplies an entry, a vector element of the same size
// and sums over a row, then a dot product squares that; 2^40 leaves 2^47 of float's 2^127 for the
// vectors' own size and the sums over up to 2^31 rows; the same margin on the small side keeps the
// products out of float's subnormals (2^-126).
constexpr double kSafeMax = 1099511627776.0;  // 2^40
constexpr double kSafeMin = 1.0 / kSafeMax;
// b is normalised when its norm leaves [2^-20, 2^20]: r'r is ||b||^2 at the start.
constexpr double kSafeNormMax = 1048576.0;  // 2^20

// The power of two nearest to 1 / sqrt(v).
double inverse_sqrt_power_of_two(double v) { return std::ldexp(1.0, -static_cast<int>(std::lround(std::log2(v) / 2))); }

struct Range {
  double largest = 0, smallest = std::numeric_limits<double>::infinity();  // over nonzero |a_ij|
};

Range value_range(const HostCsrMatrix& A, const std::vector<double>* d) {
  Range r;
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      double v = std::abs(A.values[k]);
      if (d) v *= (*d)[i] * (*d)[A.col_indices[k]];
      if (v == 0) continue;
      r.largest = std::max(r.largest, v);
      r.smallest = std::min(r.smallest, v);
    }
  return r;
}

// Small entries next to large ones are ordinary (a stiffness matrix holds round-off-sized couplings
// next to 1e14 ones: bcsstk25 spans 5e-23 to 6e14): they only lose relative weight, as they do in
// double. The largest entry decides: past 2^40 the iteration overflows, below 2^-40 its products
// sink into float's subnormals.
bool in_safe_range(const Range& r) { return r.largest == 0 || (r.largest <= kSafeMax && r.largest >= kSafeMin); }

}  // namespace

Equilibration plan_equilibration(const HostCsrMatrix& A, const std::vector<double>& b, Precision precision,
                                 bool may_scale_matrix) {
  Equilibration plan;
  if (precision == Precision::Double) return plan;
  const std::string in = " in " + to_string(precision) + " precision";
  const Range range = value_range(A, nullptr);
  if (!in_safe_range(range)) {
    const std::string why = "values of A from " + format_number(range.smallest) + " to " + format_number(range.largest);
    if (!may_scale_matrix) {
      if (range.largest > std::numeric_limits<float>::max() || range.largest < std::numeric_limits<float>::min())
        throw Error(why + " do not fit" + in + ", and the preconditioner was built for A as it is: solve in double");
    } else {
      // d_i from the diagonal (a symmetric positive definite A then has |(DAD)_ij| <= ~2), or from the
      // row's largest entry where the diagonal is zero.
      plan.d.assign(static_cast<std::size_t>(A.rows), 1.0);
      for (std::int32_t i = 0; i < A.rows; ++i) {
        double diagonal = 0, row_max = 0;
        for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
          if (A.col_indices[k] == i) diagonal = std::abs(A.values[k]);
          row_max = std::max(row_max, std::abs(A.values[k]));
        }
        const double base = diagonal > 0 ? diagonal : row_max;
        if (base > 0) plan.d[i] = inverse_sqrt_power_of_two(base);
      }
      const Range scaled = value_range(A, &plan.d);
      if (!in_safe_range(scaled))
        throw Error(why + " leave the range that stays finite" + in + ", and a diagonal scaling D A D still spans " +
                    format_number(scaled.smallest) + " to " + format_number(scaled.largest) + ": solve in double");
      plan.description = "D A D with D = diag(|a_ii|)^-1/2 in powers of 2 (" + why +
                         " leave the range that stays finite" + in + "; scaled: " + format_number(scaled.smallest) +
                         " to " + format_number(scaled.largest) + ")";
    }
  }
  long double sum = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const long double v = plan.d.empty() ? b[i] : b[i] * plan.d[i];
    sum += v * v;
  }
  const double norm = static_cast<double>(std::sqrt(sum));
  if (norm > 0 && (norm > kSafeNormMax || norm < 1 / kSafeNormMax)) {
    plan.b_scale = std::ldexp(1.0, -static_cast<int>(std::lround(std::log2(norm))));
    plan.description += std::string(plan.description.empty() ? "" : "; ") + "b scaled by " +
                        format_number(plan.b_scale) + " (||b|| = " + format_number(norm) + ")";
  }
  return plan;
}

HostCsrMatrix scaled_matrix(const HostCsrMatrix& A, const std::vector<double>& d) {
  HostCsrMatrix out = A;
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      out.values[k] = A.values[k] * d[i] * d[A.col_indices[k]];
  return out;
}

}  // namespace clkr::detail
