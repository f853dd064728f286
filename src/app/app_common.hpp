// Pieces the `clkr` subcommands share: right-hand sides, number/time/byte formatting for people, a
// wall clock, and the terminal progress line (the automatic format is clkr/solver/format_choice.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/runtime/device_info.hpp"
#include "clkr/solver/format_choice.hpp"  // choose_format, which `--format auto` runs
#include "clkr/solver/options.hpp"

namespace clkr::app {

// Uniform values in [-1, 1) from a fixed-seed generator: the same seed gives the same vector on every
// platform (std::mt19937_64 is specified bit for bit; the distribution is done by hand for that reason).
std::vector<double> random_vector(std::size_t n, std::uint64_t seed);

// A short name for reports: "bcsstk17" for ".../bcsstk17.mtx.gz"; generator specs as they are.
std::string display_name(const std::string& spec);

// A x on the host in double with long double accumulation (right-hand sides b = A x_true).
std::vector<double> host_multiply(const HostCsrMatrix& A, const std::vector<double>& x);

// ||b - A x|| / ||b|| (||b - A x|| when b = 0) on the host with long double sums.
double relative_residual(const HostCsrMatrix& A, const std::vector<double>& b, const std::vector<double>& x);

// Whether every stored a_ij has a stored a_ji of exactly the same value.
bool numerically_symmetric(const HostCsrMatrix& A);
// The same for a square matrix of which A lists the nonempty rows: A's row k is row row_ids[k] (all of
// them, in order, when row_ids is empty).
bool numerically_symmetric(const HostCsrMatrix& A, const std::vector<std::int32_t>& row_ids);

// The value of --cg-path (auto, persistent, fused, unfused); throws UsageError on anything else.
CgPath cg_path_option(const std::string& value);
// --backend's value (parse_backend), a UsageError naming the option when it is unknown.
Location backend_option(const std::string& value);
class ParsedArgs;
// --inner-tol's value (clkr solve, clkr bench solve: the inner solve's tolerance or the reliable update's
// drop), a UsageError unless it lies in (0, 1).
double inner_tol_option(const ParsedArgs& opts);

// A's row offsets in 32 bits, for peers whose one index type serves offsets and columns (Eigen's
// Map<SparseMatrix<..., int>>); throws clkr::Error naming `peer` past 2^31 - 1 entries.
std::vector<int> int32_row_offsets(const HostCsrMatrix& A, const std::string& peer);
inline const char* const kCgPathHelp =
    "auto | persistent | fused | unfused | host: how CG runs on a device (default auto:\n"
    "host for small systems on CPU devices, persistent for CSR up to the device's row\n"
    "limit, else fused; docs/performance.md)";
inline const char* const kStrengthenCheckHelp =
    "CG with a preconditioner forecasts its iterations at N, 2N, 4N, ... and asks\n"
    "the preconditioner to strengthen itself (AMG: --amg-strengthen) (default 100;\n"
    "0: never)";

// "1.23 s", "4.56 ms", "789 us"; "12.3 MiB"; "%.3g" of a number.
std::string seconds_text(double seconds);
std::string bytes_text(double bytes);
std::string number_text(double x, int digits = 3);

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

// A one-line status on stderr rewritten in place with \r, shown only when stderr is a terminal (so
// logs and pipes never see it) and at most ~10 times a second.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  void show(const std::string& text);  // rate-limited
  void clear();

 private:
  bool enabled_;
  std::size_t width_ = 0;
  double last_ = -1;
  Stopwatch clock_;
};

bool stderr_is_terminal();

}  // namespace clkr::app
