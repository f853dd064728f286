// The minimal JSON writer behind --json.
#include "json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "clkr/runtime/error.hpp"

namespace clkr::app {

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += ch;  // UTF-8 bytes pass through unchanged
        }
    }
  }
  return out + "\"";
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ << ",";
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ << "{";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (first_.empty()) throw Error("JsonWriter: end_object without begin_object");
  first_.pop_back();
  out_ << "}";
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ << "[";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (first_.empty()) throw Error("JsonWriter: end_array without begin_array");
  first_.pop_back();
  out_ << "]";
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  out_ << json_quote(name) << ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  out_ << json_quote(text);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();  // JSON has no NaN or Infinity
  separate();
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
  out_.write(buffer, result.ptr - buffer);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  separate();
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
  separate();
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  separate();
  out_ << (flag ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ << "null";
  return *this;
}

}  // namespace clkr::app
