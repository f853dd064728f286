// Command-line option parsing and the --help text, from one table of options per subcommand.
#include "cli_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "clkr/runtime/context.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::app {

namespace {

const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const auto& s : specs) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

ParsedArgs::ParsedArgs(std::string command, const std::vector<OptionSpec>& specs, const Args& args)
    : command_(std::move(command)) {
  const std::string see = " (see `clkr " + command_ + " --help`)";
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_ended || a.size() < 2 || a[0] != '-') {
      positional_.push_back(a);
      continue;
    }
    if (a == "--") {
      options_ended = true;
      continue;
    }
    if (a == "-h") {
      values_["--help"] = "";
      continue;
    }
    const std::size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const OptionSpec* spec = find_spec(specs, name);
    if (!spec && name != "--help") throw UsageError("unknown option '" + name + "'" + see);
    if (!spec || !spec->value_name) {
      if (eq != std::string::npos) throw UsageError("option '" + name + "' takes no value" + see);
      values_[name] = "";
      continue;
    }
    if (eq != std::string::npos) {
      values_[name] = a.substr(eq + 1);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      values_[name] = args[++i];
    } else {
      throw UsageError("option '" + name + "' needs a value (" + name + " " + spec->value_name + ")");
    }
    if (values_[name].empty()) throw UsageError("option '" + name + "' needs a non-empty value");
  }
}

bool ParsedArgs::has(const std::string& name) const { return values_.count(name) != 0; }

std::string ParsedArgs::text(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

double ParsedArgs::number(const std::string& name, double fallback, double min) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const char* begin = it->second.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    throw UsageError("option '" + name + "': '" + it->second + "' is not a finite number");
  }
  if (v < min) {
    std::ostringstream bound;
    bound << min;
    throw UsageError("option '" + name + "': " + it->second + " must be >= " + bound.str());
  }
  return v;
}

std::int64_t ParsedArgs::integer(const std::string& name, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const char* begin = it->second.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  if (end == begin || *end != '\0' || errno == ERANGE) {
    throw UsageError("option '" + name + "': '" + it->second + "' is not an integer");
  }
  if (v < min || v > max) {
    throw UsageError("option '" + name + "': " + it->second + " is outside [" + std::to_string(min) + ", " +
                     std::to_string(max) + "]");
  }
  return v;
}

std::vector<std::string> ParsedArgs::list(const std::string& name, const std::vector<std::string>& fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = it->second.find(',', start);
    const std::string item = it->second.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError("option '" + name + "': empty item in '" + it->second + "'");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

void print_usage(std::ostream& out, const std::string& synopsis, const std::string& description,
                 const std::vector<OptionSpec>& specs) {
  out << "usage: clkr " << synopsis << "\n" << description << "\n\noptions:\n";
  std::size_t width = 0;
  auto label = [](const OptionSpec& s) {
    return std::string(s.name) + (s.value_name ? std::string(" ") + s.value_name : "");
  };
  for (const auto& s : specs) width = std::max(width, label(s).size());
  for (const auto& s : specs) {
    const std::string l = label(s);
    out << "  " << l << std::string(width - l.size() + 2, ' ');
    // Continuation lines of a help text line up under its first line.
    for (const char* c = s.help; *c; ++c) {
      out << *c;
      if (*c == '\n') out << std::string(width + 4, ' ');
    }
    out << "\n";
  }
  out << "  --help" << std::string(width > 6 ? width - 6 + 2 : 2, ' ') << "this text\n";
}

std::string one_line(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\t')) ++i;
    // "devices:\n  0:0 ..." reads best as "devices: 0:0 ...; 0:1 ...".
    out += (!out.empty() && out.back() == ':') ? " " : "; ";
  }
  return out;
}

std::shared_ptr<Context> open_context(const std::string& selector, const ContextOptions& options) {
  try {
    return Context::create(selector, options);
  } catch (const Error& e) {
    throw Error(one_line(e.what()), e.code());
  }
}

}  // namespace clkr::app
