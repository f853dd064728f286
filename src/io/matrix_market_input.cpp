// A Matrix Market file's bytes: read whole, and inflated by zlib when gzip-compressed (within the
// host's memory limit).
#include "matrix_market_input.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr::detail::matrix_market {

std::string read_file(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error("cannot open matrix file '" + path + "': " + std::strerror(errno));
  std::string data;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error) {
    data.resize(size);
    data.resize(std::fread(data.data(), 1, data.size(), file.get()));
  }
  // Whatever the size said (a pipe, a file still growing), read on to the end.
  char chunk[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) data.append(chunk, got);
  if (std::ferror(file.get())) throw Error("cannot read matrix file '" + path + "': " + std::strerror(errno));
  return data;
}

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, const std::string& path) {
  struct Stream {
    z_stream z{};
    ~Stream() { inflateEnd(&z); }
  } stream;
  z_stream& z = stream.z;
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw Error("cannot initialise zlib to read '" + path + "'");
  std::string out;
  std::size_t in_pos = 0, out_pos = 0;
  auto grow = [&](std::size_t size) {
    const std::string shortfall = host_memory_shortfall(
        static_cast<std::int64_t>(size),
        "inflating '" + path + "' (" + bytes_for_message(static_cast<std::int64_t>(out_pos)) + " of text so far)");
    if (!shortfall.empty()) throw Error(shortfall);
    out.resize(size);
  };
  grow(std::max<std::size_t>(compressed.size() * 4, 1 << 16));
  constexpr std::size_t kChunk = 1u << 30;  // zlib counts in uInt
  auto fail = [&](const std::string& what) {
    const auto lines = std::count(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(out_pos), '\n');
    throw ParseError(path, static_cast<std::size_t>(lines) + 1, what);
  };
  for (;;) {
    if (out_pos == out.size()) grow(out.size() * 2);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + in_pos));
    z.avail_in = static_cast<uInt>(std::min(compressed.size() - in_pos, kChunk));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    z.avail_out = static_cast<uInt>(std::min(out.size() - out_pos, kChunk));
    const uInt in_before = z.avail_in, out_before = z.avail_out;
    const int status = inflate(&z, Z_NO_FLUSH);
    in_pos += in_before - z.avail_in;
    out_pos += out_before - z.avail_out;
    if (status == Z_STREAM_END) {
      // Another member follows, or the rest is trailing bytes that gzip(1) also ignores.
      if (!is_gzip(compressed.substr(in_pos))) break;
      inflateReset(&z);
    } else if (status == Z_BUF_ERROR && in_pos == compressed.size()) {
      fail("truncated gzip data");
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      fail(std::string("corrupt gzip data: ") + (z.msg ? z.msg : "zlib error " + std::to_string(status)));
    }
  }
  out.resize(out_pos);
  return out;
}

}  // namespace clkr::detail::matrix_market
