// The one exception type of clkr: a message, the OpenCL error (code and name) and, for kernel
// build failures, the compiler's build log.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "clkr/runtime/opencl.hpp"

namespace clkr {

// Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR(<code>)".
std::string cl_error_name(cl_int code);

class Error : public std::runtime_error {
 public:
  // `code` is CL_SUCCESS when the failure is not an OpenCL call's (bad input, usage).
  explicit Error(const std::string& message, cl_int code = CL_SUCCESS, std::string build_log = {});

  cl_int code() const noexcept { return code_; }
  // "CL_..." for OpenCL failures, empty otherwise.
  const std::string& cl_name() const noexcept { return cl_name_; }
  const std::string& build_log() const noexcept { return build_log_; }

 private:
  cl_int code_;
  std::string cl_name_;
  std::string build_log_;
};

// A malformed input file: the message names the file and the 1-based line.
class ParseError : public Error {
 public:
  ParseError(const std::string& file, std::size_t line, const std::string& what);
  const std::string& file() const noexcept { return file_; }
  std::size_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

// Throws Error("<what>: <CL name>", code) when `code` is not CL_SUCCESS.
void check_cl(cl_int code, const char* what);

// The Khronos bindings throw cl::Error; every public clkr entry point that calls OpenCL runs its body
// through this so users only ever see clkr::Error (with the OpenCL error name and what failed).
template <class Body>
decltype(auto) translate_cl_errors(const char* what, Body&& body) {
  try {
    return body();
  } catch (const cl::Error& e) {
    throw Error(std::string(what) + ": " + e.what() + " failed with " + cl_error_name(e.err()), e.err());
  }
}

}  // namespace clkr
