// The row facts reduced per work-group, the row-length histogram, the diagonal gathered: three small
// reads (the counts, the histogram, the diagonal) instead of the pattern.
#include "device_csr_facts.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "../runtime/large_vectors.hpp"
#include "convert.hpp"
#include "matrix_formats.hpp"

namespace clkr::detail {

DeviceCsrFacts device_csr_facts(Context& c, std::int32_t rows, std::int32_t cols, const cl::Buffer& row_offsets,
                                const cl::Buffer& col_indices, const cl::Buffer& values) {
  DeviceCsrFacts facts;
  const auto n = static_cast<std::size_t>(rows);
  std::size_t local = 256;  // a power of two (the kernel halves it), within the device's limit
  while (local > c.info().max_work_group_size) local /= 2;
  const std::string wg = "-DWG=" + std::to_string(local);
  const std::size_t groups =
      std::max<std::size_t>(1, std::min<std::size_t>((n + local - 1) / local, c.info().compute_units * 8));
  // Per work-group: min and max row length, empty rows, the farthest reach from the diagonal.
  facts.diagonal_entry = c.allocate(n * sizeof(cl_int), "matrix diagonal index");
  cl::Buffer partial = c.allocate(4 * groups * sizeof(cl_int), "matrix row facts");
  cl::Kernel kernel = c.kernel("data/csr_row_facts.cl", "csr_row_facts", wg);
  cl_uint arg = 0;
  for (const cl_int size : {static_cast<cl_int>(rows), static_cast<cl_int>(cols)}) kernel.setArg(arg++, size);
  for (const cl::Buffer* b : {&row_offsets, &col_indices, static_cast<const cl::Buffer*>(&facts.diagonal_entry),
                              static_cast<const cl::Buffer*>(&partial)})
    kernel.setArg(arg++, *b);
  c.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * local), cl::NDRange(local));
  std::vector<cl_int> reduced(4 * groups);
  cl_int nnz = 0;
  c.queue().enqueueReadBuffer(row_offsets, CL_TRUE, n * sizeof(cl_int), sizeof(cl_int), &nnz);
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
  // The row-length histogram, for the HYB width.
  const std::size_t lengths = static_cast<std::size_t>(s.max_row_length) + 2;
  cl::Buffer counts = c.allocate(lengths * sizeof(cl_int), "matrix row-length histogram");
  fill_buffer(c, counts, cl_int{0}, lengths);
  if (n > 0) {
    cl::Kernel histogram = c.kernel("data/csr_row_facts.cl", "csr_length_histogram", wg);
    histogram.setArg(0, static_cast<cl_int>(rows));
    histogram.setArg(1, row_offsets);
    histogram.setArg(2, counts);
    c.queue().enqueueNDRangeKernel(histogram, cl::NullRange, cl::NDRange((n + local - 1) / local * local),
                                   cl::NDRange(local));
  }
  std::vector<cl_int> histogram(lengths);
  read_buffer(c, counts, histogram.data(), lengths);
  s.hyb_ell_width = hyb_width_from_lengths(std::vector<std::int64_t>(histogram.begin(), histogram.end()), rows);
  // The diagonal of the square part (rows past the last column have none).
  const std::size_t square = std::min<std::size_t>(n, static_cast<std::size_t>(cols));
  assign_large(facts.diagonal, n, 0.0);
  cl::Buffer gathered = c.allocate(n * sizeof(double), "matrix diagonal");
  device_gather(c, values, facts.diagonal_entry, gathered, square);
  read_buffer(c, gathered, facts.diagonal.data(), square);
  return facts;
}

}  // namespace clkr::detail
