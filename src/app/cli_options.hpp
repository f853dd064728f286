// Command-line option parsing for the `clkr` subcommands: each command declares its options as a
// table, from which both the parser and the --help text are made, so the two never disagree.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "clkr/runtime/context.hpp"
#include "commands.hpp"

namespace clkr::app {

struct OptionSpec {
  const char* name;        // "--tol"
  const char* value_name;  // "X" for an option that takes a value, nullptr for a flag
  const char* help;        // one line (more lines: embed "\n")
};

// The parsed command line of one subcommand. Accepts "--name value" and "--name=value"; a later
// occurrence of an option replaces an earlier one; "--" ends the options. Throws UsageError for an
// unknown option, a missing value, or a value given to a flag.
class ParsedArgs {
 public:
  ParsedArgs(std::string command, const std::vector<OptionSpec>& specs, const Args& args);

  bool has(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  // The option's value, or `fallback` when absent.
  std::string text(const std::string& name, const std::string& fallback = "") const;
  // A finite number; throws UsageError naming the option when the value is not one or is below `min`.
  double number(const std::string& name, double fallback, double min = -1e308) const;
  // An integer in [min, max]; throws UsageError naming the option otherwise.
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t min, std::int64_t max) const;
  // A comma-separated list ("csr,ell"); empty items are refused.
  std::vector<std::string> list(const std::string& name, const std::vector<std::string>& fallback) const;

 private:
  std::string command_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

// "usage: clkr <synopsis>\n<description>\n\noptions:\n  --name VALUE  help\n..."
void print_usage(std::ostream& out, const std::string& synopsis, const std::string& description,
                 const std::vector<OptionSpec>& specs);

// Context::create(selector) with its error made one line (the device list it carries is joined with
// "; "): the program promises a one-line message for every input error.
std::shared_ptr<Context> open_context(const std::string& selector, const ContextOptions& options = {});

// `text` on one line: newlines and the indentation after them become "; ".
std::string one_line(const std::string& text);

}  // namespace clkr::app
