// The row facts reduced per work-group and the row-length histogram in one buffer, read at once; the
// diagonal gathered.
#include "device_csr_facts.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "../runtime/large_vectors.hpp"
#include "../runtime/per_item_launch.hpp"
#include "convert.hpp"
#include "matrix_formats.hpp"

namespace clkr::detail {
namespace {

// Row lengths from this one on share the histogram's last bin (the HYB width is far below it on
// every matrix clkr has met; a wider one costs a second, exact histogram).
constexpr cl_int kHistogramLast = 1024;

// The row-length histogram's bins 0 ... last into out[first, first + last] (zeroed before).
void histogram(Context& c, std::size_t local, const std::string& wg, std::int32_t rows, cl_int last,
               const cl::Buffer& row_offsets, const cl::Buffer& out, std::size_t first) {
  cl::Kernel kernel = c.kernel("data/csr_row_facts.cl", "csr_length_histogram", wg);
  kernel.setArg(0, static_cast<cl_int>(rows));
  kernel.setArg(1, last);
  kernel.setArg(2, row_offsets);
  kernel.setArg(3, out);
  kernel.setArg(4, static_cast<cl_int>(first));
  enqueue_per_item(c, kernel, static_cast<std::size_t>(rows), local);
}

}  // namespace

DeviceCsrFacts device_csr_facts(Context& c, std::int32_t rows, std::int32_t cols, std::int64_t nnz,
                                const cl::Buffer& row_offsets, const cl::Buffer& col_indices) {
  DeviceCsrFacts facts;
  const auto n = static_cast<std::size_t>(rows);
  std::size_t local = 256;  // a power of two (the kernel halves it), within the device's limit
  while (local > c.info().max_work_group_size) local /= 2;
  const std::string wg = "-DWG=" + std::to_string(local);
  const std::size_t groups =
      std::max<std::size_t>(1, std::min<std::size_t>((n + local - 1) / local, c.info().compute_units * 8));
  // Per work-group: min and max row length, empty rows, the farthest reach from the diagonal; then the
  // histogram's kHistogramLast + 1 bins, in the same buffer.
  facts.diagonal_entry = c.allocate(n * sizeof(cl_int), "matrix diagonal index");
  const std::size_t bins = kHistogramLast + 1;
  cl::Buffer partial = c.allocate((4 * groups + bins) * sizeof(cl_int), "matrix row facts");
  fill_buffer(c, partial, cl_int{0}, 4 * groups + bins);
  cl::Kernel kernel = c.kernel("data/csr_row_facts.cl", "csr_row_facts", wg);
  cl_uint arg = 0;
  for (const cl_int size : {static_cast<cl_int>(rows), static_cast<cl_int>(cols)}) kernel.setArg(arg++, size);
  for (const cl::Buffer* b : {&row_offsets, &col_indices, static_cast<const cl::Buffer*>(&facts.diagonal_entry),
                              static_cast<const cl::Buffer*>(&partial)})
    kernel.setArg(arg++, *b);
  c.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local));
  histogram(c, local, wg, rows, kHistogramLast, row_offsets, partial, 4 * groups);
  std::vector<cl_int> reduced(4 * groups + bins);
  read_buffer(c, partial, reduced.data(), reduced.size());
  MatrixStats& s = facts.stats;
  s.rows = rows;
  s.cols = cols;
  s.nnz = nnz;
  s.min_row_length = rows > 0 ? INT64_MAX : 0;
  for (std::size_t g = 0; g < groups && n > 0; ++g) {
    s.min_row_length = std::min<std::int64_t>(s.min_row_length, reduced[4 * g]);
    s.max_row_length = std::max<std::int64_t>(s.max_row_length, reduced[4 * g + 1]);
    s.empty_rows += reduced[4 * g + 2];
    s.bandwidth = std::max<std::int64_t>(s.bandwidth, reduced[4 * g + 3]);
  }
  s.mean_row_length = rows > 0 ? static_cast<double>(nnz) / rows : 0.0;
  // The HYB width: exact from the clamped bins when it stays below the last one (the counts of rows
  // with at least w entries are exact for every w up to it), else from a histogram of every length.
  auto width_from = [&](std::vector<cl_int>::const_iterator first, std::size_t lengths) {
    std::vector<std::int64_t> at(lengths + 1, 0);  // a zero past the longest row, as hyb_width_from_lengths wants
    std::copy(first, first + static_cast<std::ptrdiff_t>(lengths), at.begin());
    return hyb_width_from_lengths(std::move(at), rows);
  };
  const std::size_t clamped = std::min<std::size_t>(bins, static_cast<std::size_t>(s.max_row_length) + 1);
  s.hyb_ell_width = width_from(reduced.begin() + static_cast<std::ptrdiff_t>(4 * groups), clamped);
  if (s.hyb_ell_width >= kHistogramLast && s.max_row_length > kHistogramLast) {
    const std::size_t lengths = static_cast<std::size_t>(s.max_row_length) + 1;
    cl::Buffer all = c.allocate(lengths * sizeof(cl_int), "matrix row-length histogram");
    fill_buffer(c, all, cl_int{0}, lengths);
    histogram(c, local, wg, rows, static_cast<cl_int>(s.max_row_length), row_offsets, all, 0);
    std::vector<cl_int> every(lengths);
    read_buffer(c, all, every.data(), lengths);
    s.hyb_ell_width = width_from(every.begin(), lengths);
  }
  return facts;
}

std::vector<double> device_diagonal(Context& c, std::int32_t rows, std::int32_t cols, const cl::Buffer& values,
                                    const cl::Buffer& diagonal_entry) {
  const auto n = static_cast<std::size_t>(rows);
  std::vector<double> diagonal = large_vector<double>(n, 0.0);
  // Rows past the last column have no diagonal entry: only the square part is gathered.
  const std::size_t square = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(cols, 0)));
  if (square == 0) return diagonal;
  cl::Buffer gathered = c.allocate(square * sizeof(double), "matrix diagonal");
  device_gather(c, values, diagonal_entry, gathered, square);
  read_buffer(c, gathered, diagonal.data(), square);
  return diagonal;
}

}  // namespace clkr::detail
