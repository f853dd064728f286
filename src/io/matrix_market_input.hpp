// Internal to src/io: a Matrix Market file's bytes, read whole and inflated when they are gzip's.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace clkr::detail::matrix_market {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// The whole file (read on past the size the file system gives, to its end); throws clkr::Error.
std::string read_file(const std::string& path);

// True when the data starts with gzip's magic bytes.
bool is_gzip(std::string_view data);

// Inflates a whole gzip file (several concatenated members too, as `cat a.gz b.gz` makes). The text is
// held whole, so it may grow only within the host's memory limit: a small file that inflates to more
// (a compression bomb, or a matrix too large for this machine) is refused when its text outgrows the
// limit, with both named, instead of running the machine out of memory.
std::string gunzip(std::string_view compressed, const std::string& path);

}  // namespace clkr::detail::matrix_market
