// Internal to src/io: the Matrix Market reader's lexical layer: whitespace-separated tokens of a line,
// integers read from them as files in the wild write them (a leading '+'), and whether a value out of
// a double's range is too small rather than too large.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// Its own namespace within detail: the reader's names (Tokens, Header, Parser, Format) are its alone.
namespace clkr::detail::matrix_market {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool iequals(std::string_view a, std::string_view b);

// A token for an error message, cut short so that a binary blob cannot make a megabyte message.
std::string quote(std::string_view token);

// Splits one line into whitespace-separated tokens; an empty view means the line is exhausted.
class Tokens {
 public:
  explicit Tokens(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  std::string_view next() {
    while (p_ < end_ && is_space(*p_)) ++p_;
    const char* begin = p_;
    while (p_ < end_ && !is_space(*p_)) ++p_;
    return {begin, static_cast<std::size_t>(p_ - begin)};
  }

 private:
  const char* p_;
  const char* end_;
};

enum class NumberStatus { ok, invalid, out_of_range };

// from_chars rejects a leading '+', which scanf-based readers (the reference mmio.c among them)
// accept, so files in the wild may carry one.
std::string_view without_plus(std::string_view token);

// Parses the whole token as an integer.
NumberStatus parse_int(std::string_view token, std::int64_t& value);

// from_chars reports result_out_of_range both for overflow and for values too small even for a
// subnormal; the decimal order of magnitude of the token tells which.
bool is_underflow(std::string_view token);

}  // namespace clkr::detail::matrix_market
