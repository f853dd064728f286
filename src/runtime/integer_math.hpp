// Integer rounding shared by the launch-shape and storage-layout code: ceil(a / b) and a rounded up to a
// multiple of b, for non-negative a and positive b, in a's type.
#pragma once

#include <type_traits>

namespace clkr::detail {

template <typename T, typename U>
constexpr T ceil_div(T a, U b) {
  static_assert(std::is_integral_v<T> && std::is_integral_v<U>, "ceil_div takes integers");
  return (a + static_cast<T>(b) - 1) / static_cast<T>(b);
}

template <typename T, typename U>
constexpr T round_up(T a, U multiple) {
  return ceil_div(a, multiple) * static_cast<T>(multiple);
}

}  // namespace clkr::detail
