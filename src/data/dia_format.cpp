// DIA on the host: the search for the diagonals, the arrays and their inverse.
#include "dia_format.hpp"

#include <algorithm>

#include "../runtime/integer_math.hpp"
#include "../runtime/large_vectors.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {

Diagonals find_diagonals(const CsrView& A, std::int64_t limit, ArrayView<std::int32_t> row_ids) {
  Diagonals found;
  std::vector<std::int32_t>& known = found.offsets;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    const std::int64_t row = row_ids.empty() ? i : row_ids[i];
    // A row's offsets ascend with its columns, so the search resumes where the row's last offset was
    // found; in a band the next offset is usually the next one known, checked first.
    std::size_t at = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const auto offset = static_cast<std::int32_t>(A.col_indices[k] - row);  // within +-(2^31 - 1)
      if (at < known.size() && known[at] != offset)
        at = static_cast<std::size_t>(
            std::lower_bound(known.begin() + static_cast<std::ptrdiff_t>(at), known.end(), offset) - known.begin());
      if (at < known.size() && known[at] == offset) {
        ++at;
        continue;
      }
      if (static_cast<std::int64_t>(known.size()) >= limit) found.more = true;
      known.insert(known.begin() + static_cast<std::ptrdiff_t>(at), offset);
      if (found.more) return found;
      ++at;
    }
  }
  return found;
}

FormatShape dia_shape(const CsrView& A, std::int64_t max_diagonals, ArrayView<std::int32_t> row_ids,
                      std::int64_t all_rows) {
  if (max_diagonals < 0)
    throw Error("MatrixOptions::max_dia_diagonals must be >= 0, got " + std::to_string(max_diagonals));
  FormatShape s;
  s.format = Format::Dia;
  s.has_dia = true;
  Diagonals diagonals = find_diagonals(A, max_diagonals, row_ids);
  s.dia_offsets = std::move(diagonals.offsets);
  s.dia_more = diagonals.more;
  s.dia_pitch = round_up(all_rows < 0 ? A.rows : all_rows, 32);
  return s;
}

std::int64_t dia_inside(const FormatShape& shape, std::int64_t rows, std::int64_t cols) {
  std::int64_t inside = 0;
  for (const std::int32_t offset : shape.dia_offsets)  // rows i with 0 <= i + offset < cols
    inside += std::max<std::int64_t>(0, std::min(rows, cols - offset) - std::max<std::int64_t>(0, -offset));
  return inside;
}

std::int64_t dia_present_words(const FormatShape& shape) { return shape.dia_stored() / 32; }

std::int64_t dia_bytes(const FormatShape& shape, std::int64_t value_bytes) {
  return 4 * static_cast<std::int64_t>(shape.dia_offsets.size()) + 4 * dia_present_words(shape) +
         shape.dia_stored() * value_bytes;
}

HostFormat build_dia(const CsrView& A, const FormatShape& shape) {
  HostFormat h;
  h.shape = shape;
  const std::vector<std::int32_t>& offsets = shape.dia_offsets;
  const std::int64_t pitch = shape.dia_pitch;
  assign_large(h.ell_values, static_cast<std::size_t>(shape.dia_stored()), 0.0);
  assign_large(h.dia_present, static_cast<std::size_t>(dia_present_words(shape)), std::uint32_t{0});
  // A block of 32 rows owns whole words of the presence bits (the pitch is a multiple of 32), so the
  // blocks fill in parallel.
  const std::int64_t blocks = (static_cast<std::int64_t>(A.rows) + 31) / 32;
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const auto end = static_cast<std::int32_t>(std::min<std::int64_t>(A.rows, 32 * (b + 1)));
    for (auto i = static_cast<std::int32_t>(32 * b); i < end; ++i) {
      std::size_t d = 0;  // the row's offsets ascend, like `offsets`, which holds every one of them
      for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
        const std::int32_t offset = A.col_indices[k] - i;
        while (offsets[d] < offset) ++d;
        const std::int64_t slot = static_cast<std::int64_t>(d) * pitch + i;
        h.ell_values[static_cast<std::size_t>(slot)] = A.values[k];
        h.dia_present[static_cast<std::size_t>(slot / 32)] |= std::uint32_t{1} << (slot % 32);
      }
    }
  }
  return h;
}

HostCsrMatrix csr_from_dia(const HostFormat& h, std::int32_t rows, std::int32_t cols, bool symmetric) {
  const FormatShape& s = h.shape;
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  A.symmetric = symmetric;
  A.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int32_t i = 0; i < rows; ++i) {
    for (std::size_t d = 0; d < s.dia_offsets.size(); ++d) {
      const std::int64_t slot = static_cast<std::int64_t>(d) * s.dia_pitch + i;
      if (((h.dia_present[static_cast<std::size_t>(slot / 32)] >> (slot % 32)) & 1u) == 0) continue;
      A.col_indices.push_back(i + s.dia_offsets[d]);
      A.values.push_back(h.ell_values[static_cast<std::size_t>(slot)]);
    }
    A.row_offsets[i + 1] = static_cast<std::int64_t>(A.col_indices.size());
  }
  return A;
}

}  // namespace clkr::detail
