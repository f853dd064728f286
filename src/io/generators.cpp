// Laplacian model problems written straight into CSR, and the matrix-spec dispatcher.
#include "clkr/io/generators.hpp"

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string_view>

#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The (2 dims + 1)-point Laplacian on an n^dims grid, rows in lexicographic order (x fastest). The
// exact nnz is known up front, so the arrays are allocated once at their final size: poisson3d:192
// has 49 million nonzeros and must not pay for growth or a sort.
HostCsrMatrix laplacian(int n, int dims, const char* name) {
  const std::string what = std::string(name) + ": n = " + std::to_string(n);
  if (n < 1) throw Error(what + ", expected n >= 1");
  std::int64_t stride[3] = {1, 1, 1};
  std::int64_t rows = 1;
  for (int d = 0; d < dims; ++d) {
    stride[d] = rows;
    rows *= n;  // at most (2^31)^2 before the check below: no overflow
    if (rows > kInt32Max) throw Error(what + " gives more rows than the int32 limit " + std::to_string(kInt32Max));
  }
  // Every grid point has 2 dims neighbours except across the boundary: each of the 2 dims faces
  // (n^(dims-1) points) loses one.
  const std::int64_t nnz = (2 * dims + 1) * rows - 2 * dims * (rows / n);
  if (nnz > kInt32Max)
    throw Error(what + " gives " + std::to_string(nnz) + " nonzeros, more than the int32 limit " +
                std::to_string(kInt32Max));

  HostCsrMatrix A;
  A.rows = A.cols = static_cast<std::int32_t>(rows);
  A.symmetric = true;
  A.row_offsets.resize(static_cast<std::size_t>(rows) + 1);
  A.col_indices.resize(static_cast<std::size_t>(nnz));
  A.values.resize(static_cast<std::size_t>(nnz));
  std::int32_t* col = A.col_indices.data();
  double* val = A.values.data();
  std::int32_t k = 0;
  auto put = [&](std::int64_t c, double v) {
    col[k] = static_cast<std::int32_t>(c);
    val[k] = v;
    ++k;
  };
  for (std::int64_t row = 0; row < rows; ++row) {
    A.row_offsets[row] = k;
    std::int64_t coord[3];
    for (int d = 0; d < dims; ++d) coord[d] = row / stride[d] % n;
    // Neighbours in increasing column order: lower ones from the slowest axis in, then the diagonal,
    // then upper ones from the fastest axis out.
    for (int d = dims - 1; d >= 0; --d)
      if (coord[d] > 0) put(row - stride[d], -1.0);
    put(row, 2.0 * dims);
    for (int d = 0; d < dims; ++d)
      if (coord[d] < n - 1) put(row + stride[d], -1.0);
  }
  A.row_offsets[rows] = k;
  return A;
}

struct Generator {
  std::string_view name;
  HostCsrMatrix (*make)(int);
};
constexpr Generator kGenerators[] = {{"poisson2d", poisson2d}, {"poisson3d", poisson3d}};

// The generator `spec` names ("name:..."), or nullptr.
const Generator* find_generator(const std::string& spec) {
  for (const Generator& g : kGenerators)
    if (spec.size() > g.name.size() && spec.compare(0, g.name.size(), g.name) == 0 && spec[g.name.size()] == ':')
      return &g;
  return nullptr;
}

}  // namespace

HostCsrMatrix poisson2d(int n) { return laplacian(n, 2, "poisson2d"); }

HostCsrMatrix poisson3d(int n) { return laplacian(n, 3, "poisson3d"); }

bool is_generator_spec(const std::string& spec) { return find_generator(spec) != nullptr; }

HostCsrMatrix load_matrix(const std::string& spec, const MatrixMarketOptions& options) {
  if (const Generator* g = find_generator(spec)) {
    const std::string_view arg = std::string_view(spec).substr(g->name.size() + 1);
    int n = 0;
    const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    if (ec != std::errc() || ptr != arg.data() + arg.size() || n < 1)
      throw Error("bad matrix spec '" + spec + "': expected " + std::string(g->name) +
                  ":N with N a positive integer (grid points per side)");
    return g->make(n);
  }
  // "poisson4d:8" or a mistyped path with a colon: say both readings failed, not only the file one.
  if (spec.find(':') != std::string::npos && !std::filesystem::exists(spec))
    throw Error("matrix spec '" + spec +
                "' is neither an existing file nor a generator spec (poisson2d:N, poisson3d:N)");
  return read_matrix_market(spec, options);
}

}  // namespace clkr
