// The Matrix Market reader's tokens and numbers: case-blind words, quoted tokens for messages, and
// integers and the magnitude of values parsed with std::from_chars.
#include "matrix_market_tokens.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <system_error>

namespace clkr::detail::matrix_market {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  if (token.size() <= kMax) return "'" + std::string(token) + "'";
  return "'" + std::string(token.substr(0, kMax)) + "...'";
}

std::string_view without_plus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  return token;
}

NumberStatus parse_int(std::string_view token, std::int64_t& value) {
  token = without_plus(token);
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
  return ec == std::errc() && ptr == end && !token.empty() ? NumberStatus::ok : NumberStatus::invalid;
}

bool is_underflow(std::string_view token) {
  std::size_t i = 0;
  if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
  std::int64_t magnitude = 0;  // decimal exponent of the leading nonzero digit, roughly
  bool after_point = false;
  bool seen_nonzero = false;
  for (; i < token.size(); ++i) {
    const char c = token[i];
    if (c == '.') {
      after_point = true;
    } else if (c >= '0' && c <= '9') {
      seen_nonzero = seen_nonzero || c != '0';
      if (!after_point && seen_nonzero) ++magnitude;
      if (after_point && !seen_nonzero) --magnitude;
    } else {
      break;
    }
  }
  std::int64_t exponent = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    std::string_view digits = token.substr(i + 1);
    const bool negative = !digits.empty() && digits[0] == '-';
    if (parse_int(digits, exponent) == NumberStatus::out_of_range)
      exponent = negative ? std::numeric_limits<std::int64_t>::min() / 2 : std::numeric_limits<std::int64_t>::max() / 2;
  }
  return magnitude + exponent < 0;
}

}  // namespace clkr::detail::matrix_market
