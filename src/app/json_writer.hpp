// A minimal streaming JSON writer for the program's --json output (no dependency): objects, arrays,
// strings escaped per RFC 8259, numbers in the shortest form that reads back exactly, NaN/Inf as null.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace clkr::app {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The key of the next member (inside an object).
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(std::uint64_t number);
  JsonWriter& value(bool flag);
  JsonWriter& null();

  // key(name).value(v) in one call.
  template <class T>
  JsonWriter& member(std::string_view name, const T& v) {
    return key(name).value(v);
  }

 private:
  void separate();  // the comma before a value or key that is not its container's first

  std::ostream& out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

// `text` as a JSON string literal, quotes included.
std::string json_quote(std::string_view text);

}  // namespace clkr::app
