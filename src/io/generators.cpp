// Laplacian model problems written straight into CSR, and the matrix-spec dispatcher (the other
// generators: elasticity.cpp, powerlaw.cpp).
#include "clkr/io/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>

#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"
#include "laplacian_row.hpp"

namespace clkr {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The (2 dims + 1)-point Laplacian on an n^dims grid, rows in lexicographic order (x fastest). The
// exact nnz is known up front, so the arrays are allocated once at their final size: poisson3d:192
// has 49 million nonzeros and must not pay for growth or a sort. Rows are counted, then filled, in
// parallel: poisson3d:700 has 2.4 billion (past 2^31, so 64-bit row offsets).
HostCsrMatrix laplacian(int n, int dims, const char* name) {
  const std::string what = std::string(name) + ": n = " + std::to_string(n);
  if (n < 1) throw Error(what + ", expected n >= 1");
  std::int64_t rows = 1;
  for (int d = 0; d < dims; ++d) {
    rows *= n;  // at most (2^31)^2 before the check below: no overflow
    if (rows > kInt32Max) throw Error(what + " gives more rows than the int32 limit " + std::to_string(kInt32Max));
  }
  // Every grid point has 2 dims neighbours except across the boundary: each of the 2 dims faces
  // (n^(dims-1) points) loses one.
  const std::int64_t nnz = (2 * dims + 1) * rows - 2 * dims * (rows / n);
  // The CSR arrays, before they are allocated: poisson3d:674 asks for 27 GB.
  check_host_memory(8 * (rows + 1) + 12 * nnz,
                    what + " (" + std::to_string(rows) + " rows, " + std::to_string(nnz) + " nonzeros in CSR)");

  HostCsrMatrix A;
  A.rows = A.cols = static_cast<std::int32_t>(rows);
  A.symmetric = true;
  A.row_offsets.resize(static_cast<std::size_t>(rows) + 1);
  A.col_indices.resize(static_cast<std::size_t>(nnz));
  A.values.resize(static_cast<std::size_t>(nnz));
  std::int64_t* offsets = A.row_offsets.data();
  offsets[0] = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    std::int64_t length = 0;
    detail::laplacian_row(row, n, dims, [&](std::int64_t, double) { ++length; });
    offsets[row + 1] = length;
  }
  for (std::int64_t row = 0; row < rows; ++row) offsets[row + 1] += offsets[row];
  std::int32_t* col = A.col_indices.data();
  double* val = A.values.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    std::int64_t k = offsets[row];
    detail::laplacian_row(row, n, dims, [&](std::int64_t c, double v) {
      col[k] = static_cast<std::int32_t>(c);
      val[k] = v;
      ++k;
    });
  }
  return A;
}

// The 7-point operator -div(k grad u) on an n^3 grid (x fastest, Dirichlet): face(x, y, z, axis)
// gives the coupling across the face between the cell and its neighbour up the axis (0 x, 1 y,
// 2 z), boundary(x, y, z, axis) the coupling to the boundary beyond the cell, added to the diagonal.
template <class Face, class Boundary>
HostCsrMatrix stencil3d(int n, const char* name, const Face& face, const Boundary& boundary) {
  HostCsrMatrix A = laplacian(n, 3, name);  // the pattern (and its size checks), values rewritten below
  const std::int64_t stride[3] = {1, n, static_cast<std::int64_t>(n) * n};
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < A.rows; ++row) {
    const int c[3] = {static_cast<int>(row % n), static_cast<int>(row / n % n), static_cast<int>(row / stride[2])};
    std::int64_t k = A.row_offsets[row];
    double diagonal = 0;
    // The row's entries are in column order: lower neighbours from z down to x, the diagonal, upper
    // neighbours from x up to z (laplacian()'s order).
    std::int64_t diagonal_slot = -1;
    for (int d = 2; d >= 0; --d) {
      if (c[d] > 0) {
        int lower[3] = {c[0], c[1], c[2]};
        --lower[d];
        const double w = face(lower[0], lower[1], lower[2], d);
        A.values[k++] = -w;
        diagonal += w;
      } else {
        diagonal += boundary(c[0], c[1], c[2], d);
      }
    }
    diagonal_slot = k++;
    for (int d = 0; d < 3; ++d) {
      if (c[d] < n - 1) {
        const double w = face(c[0], c[1], c[2], d);
        A.values[k++] = -w;
        diagonal += w;
      } else {
        diagonal += boundary(c[0], c[1], c[2], d);
      }
    }
    A.values[diagonal_slot] = diagonal;
  }
  return A;
}

HostCsrMatrix anisotropic3d_default(int n) { return anisotropic3d(n, 1e-3); }
HostCsrMatrix jumping3d_default(int n) { return jumping3d(n, 1e4); }
HostCsrMatrix elasticity3d_default(int n) { return elasticity3d(n); }
HostCsrMatrix powerlaw_default(int n) { return powerlaw(n); }
HostCsrMatrix powerlaw_max_row(int n, double max_row) {
  if (!(max_row >= 1 && max_row <= kInt32Max) || max_row != std::floor(max_row))
    throw Error("powerlaw: MAXROW = " + std::to_string(max_row) + ", expected an integer >= 1");
  PowerLawOptions options;
  options.max_row_length = static_cast<int>(max_row);
  return powerlaw(n, options);
}

struct Generator {
  std::string_view name;
  HostCsrMatrix (*make)(int);
  HostCsrMatrix (*make_with)(int, double);  // with the optional second parameter, or null
  const char* parameter;                    // its name in messages
};
constexpr Generator kGenerators[] = {
    {"poisson2d", poisson2d, nullptr, nullptr},
    {"poisson3d", poisson3d, nullptr, nullptr},
    {"anisotropic3d", anisotropic3d_default, anisotropic3d, "EPSILON"},
    {"jumping3d", jumping3d_default, jumping3d, "CONTRAST"},
    {"elasticity3d", elasticity3d_default, elasticity3d, "NU"},
    {"powerlaw", powerlaw_default, powerlaw_max_row, "MAXROW"},
};

// The generator `spec` names ("name:..."), or nullptr.
const Generator* find_generator(const std::string& spec) {
  for (const Generator& g : kGenerators)
    if (spec.size() > g.name.size() && spec.compare(0, g.name.size(), g.name) == 0 && spec[g.name.size()] == ':')
      return &g;
  return nullptr;
}

// N, the first field of a generator spec's arguments, when it is a positive integer.
std::optional<int> spec_size(std::string_view field) {
  int n = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), n);
  if (ec != std::errc() || ptr != field.data() + field.size() || n < 1) return std::nullopt;
  return n;
}

}  // namespace

HostCsrMatrix poisson2d(int n) { return laplacian(n, 2, "poisson2d"); }

HostCsrMatrix poisson3d(int n) { return laplacian(n, 3, "poisson3d"); }

HostCsrMatrix anisotropic3d(int n, double epsilon) {
  if (!(epsilon > 0 && epsilon <= 1))
    throw Error("anisotropic3d: epsilon = " + std::to_string(epsilon) + ", expected 0 < epsilon <= 1");
  auto weight = [epsilon](int, int, int, int axis) { return axis == 2 ? epsilon : 1.0; };
  HostCsrMatrix A = stencil3d(n, "anisotropic3d", weight, weight);
  A.symmetric = true;
  return A;
}

HostCsrMatrix jumping3d(int n, double contrast) {
  if (!(contrast >= 1 && contrast < 1e300))
    throw Error("jumping3d: contrast = " + std::to_string(contrast) + ", expected 1 <= contrast < 1e300");
  // The cell's coefficient: the parity of its cube in a 4 x 4 x 4 partition of the grid.
  auto k = [n, contrast](int x, int y, int z) {
    const int parity = (4 * x / n + 4 * y / n + 4 * z / n) % 2;
    return parity ? contrast : 1.0;
  };
  auto face = [&k](int x, int y, int z, int axis) {
    const double a = k(x, y, z);
    const double b = k(x + (axis == 0), y + (axis == 1), z + (axis == 2));
    return 2 * a * b / (a + b);
  };
  auto boundary = [&k](int x, int y, int z, int) { return k(x, y, z); };
  HostCsrMatrix A = stencil3d(n, "jumping3d", face, boundary);
  A.symmetric = true;
  return A;
}

bool is_generator_spec(const std::string& spec) { return find_generator(spec) != nullptr; }

DeclaredSize declared_size(const std::string& spec) {
  if (const Generator* g = find_generator(spec)) {
    const std::string_view args = std::string_view(spec).substr(g->name.size() + 1);
    const std::string_view arg = args.substr(0, args.find(':'));
    const std::optional<int> parsed = spec_size(arg);
    if (!parsed) return {};  // a malformed spec is load_matrix's to report, with what was expected
    const int n = *parsed;
    if (g->name == "powerlaw") {  // rows of at most MAXROW (1015 unless given) entries
      const std::string_view rest = args.substr(std::min(args.size(), arg.size() + 1));
      const long double longest =
          rest.empty() ? PowerLawOptions{}.max_row_length : std::strtold(std::string(rest).c_str(), nullptr);
      return {n, n, static_cast<std::int64_t>(std::min(static_cast<long double>(n) * std::max(longest, 1.0L), 9e18L)),
              true};
    }
    if (g->name == "elasticity3d") {  // 3 n (n+1)^2 rows of at most 81 entries
      const long double rows = 3.0L * n * (n + 1.0L) * (n + 1.0L);
      return {static_cast<std::int64_t>(std::min(rows, 9e18L)), static_cast<std::int64_t>(std::min(rows, 9e18L)),
              static_cast<std::int64_t>(std::min(81 * rows, 9e18L)), true};
    }
    const int dims = g->name == "poisson2d" ? 2 : 3;
    // In long double: n^3 for n near 2^31 is beyond int64; the result only matters when it is small.
    const long double rows = std::pow(static_cast<long double>(n), dims);
    const long double nnz = (2 * dims + 1) * rows - 2 * dims * rows / n;
    const long double cap = 9e18L;
    DeclaredSize size;
    size.rows = size.cols = static_cast<std::int64_t>(std::min(rows, cap));
    size.max_nnz = static_cast<std::int64_t>(std::min(nnz, cap));
    size.known = true;
    return size;
  }
  if (!std::filesystem::exists(spec)) return {};
  const MatrixMarketSize file = read_matrix_market_size(spec);
  DeclaredSize size;
  size.rows = file.rows;
  size.cols = file.cols;
  size.max_nnz = file.mirrored ? 2 * file.entries : file.entries;
  size.known = true;
  return size;
}

MeshCoordinates generator_coordinates(const std::string& spec) {
  const Generator* g = find_generator(spec);
  if (g == nullptr || g->name != "elasticity3d") return {};
  const std::string_view args = std::string_view(spec).substr(g->name.size() + 1);
  const std::optional<int> n = spec_size(args.substr(0, args.find(':')));
  if (!n) throw Error("bad matrix spec '" + spec + "': expected elasticity3d:N[:NU] with N a positive integer");
  return {elasticity3d_coordinates(*n), 3};
}

HostCsrMatrix load_matrix(const std::string& spec, const MatrixMarketOptions& options) {
  if (const Generator* g = find_generator(spec)) {
    const std::string_view args = std::string_view(spec).substr(g->name.size() + 1);
    const std::size_t colon = g->make_with ? args.find(':') : std::string_view::npos;
    const std::string_view arg = args.substr(0, colon);
    const std::string expected =
        std::string(g->name) + ":N" + (g->make_with ? std::string("[:") + g->parameter + "]" : "");
    const std::optional<int> size = spec_size(arg);
    if (!size)
      throw Error("bad matrix spec '" + spec + "': expected " + expected + " with N a positive integer (" +
                  (g->name == "powerlaw" ? "rows" : "grid points per side") + ")");
    const int n = *size;
    if (colon == std::string_view::npos) return g->make(n);
    const std::string text(args.substr(colon + 1));
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
      throw Error("bad matrix spec '" + spec + "': expected " + expected + " with " + g->parameter + " a number");
    return g->make_with(n, value);
  }
  // "poisson4d:8" or a mistyped path with a colon: say both readings failed, not only the file one.
  if (spec.find(':') != std::string::npos && !std::filesystem::exists(spec))
    throw Error("matrix spec '" + spec +
                "' is neither an existing file nor a generator spec (poisson2d:N, poisson3d:N, "
                "anisotropic3d:N[:EPSILON], jumping3d:N[:CONTRAST], elasticity3d:N[:NU], powerlaw:N[:MAXROW])");
  return read_matrix_market(spec, options);
}

}  // namespace clkr
