// Tests of the upload behind Matrix::update_values (src/data/value_upload.cpp) on its own: values in CSR
// order reach CSR's array, or the slots a random layout gives them, in chunks smaller than, equal to
// and larger than the entries, with 32- and 64-bit slots, and nothing else in the parts changes
// (padding); the caller's array may change as soon as the call returns.
#include "../../src/data/value_upload.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "../../src/data/convert.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;

constexpr double kPadding = -7.25;  // what the parts hold where no slot points

// The parts' values on the host: doubles, or quasi-double's halves merged (a device without fp64).
std::vector<double> read_part(const detail::ValueBuffers& part, std::size_t n) {
  std::vector<double> out(n);
  Context& c = *context();
  if (c.info().fp64) {
    detail::read_buffer(c, part.primary, out.data(), n);
  } else {
    std::vector<float> head(n), tail(n);
    detail::read_buffer(c, part.primary, head.data(), n);
    detail::read_buffer(c, part.tail, tail.data(), n);
    detail::host_merge(head.data(), tail.data(), out.data(), n);
  }
  return out;
}

detail::ValueBuffers make_part(std::size_t n) {
  Context& c = *context();
  detail::ValueBuffers part;
  const std::size_t size = std::max<std::size_t>(n, 1);
  if (c.info().fp64) {
    part.primary = c.allocate(size * sizeof(double), "test part");
    detail::fill_buffer(c, part.primary, kPadding, n);
  } else {
    part.primary = c.allocate(size * sizeof(float), "test part head");
    part.tail = c.allocate(size * sizeof(float), "test part tail");
    detail::fill_buffer(c, part.primary, static_cast<float>(kPadding), n);
    detail::fill_buffer(c, part.tail, 0.0f, n);
  }
  return part;
}

TEST(ValueUpload, EveryEntryReachesItsSlotInEveryChunking) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{255}, std::size_t{257},
                              std::size_t{1023}, std::size_t{1025}}) {
    // A layout: a column-major part with 40% padding and a CSR-like part, entries shuffled over both.
    const std::size_t column_size = n + n * 2 / 3, csr_size = n / 3;
    std::mt19937 rng(static_cast<unsigned>(n) + 1);
    std::vector<std::int64_t> places(column_size + csr_size);
    std::iota(places.begin(), places.end(), std::int64_t{0});
    std::shuffle(places.begin(), places.end(), rng);
    std::vector<std::int64_t> slots(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t at = places[k];
      slots[k] = at < static_cast<std::int64_t>(column_size) ? at : -(at - static_cast<std::int64_t>(column_size)) - 1;
    }
    std::uniform_real_distribution<double> u(-1e3, 1e3);
    std::vector<double> values(n);
    for (double& v : values) v = u(rng);
    for (const bool wide : {false, true}) {
      for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{256}, n, n + 5}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", chunk " + std::to_string(chunk) + (wide ? ", 64-bit" : ""));
        detail::ValueUpload upload(context(), slots, wide, chunk);
        EXPECT_EQ(upload.wide(), wide);
        const detail::ValueBuffers column = make_part(column_size), csr = make_part(csr_size);
        upload.upload(values, column, csr);
        // A second round with other values through the same stages (their transfers waited for); the
        // caller's array may change as soon as the call returns.
        std::vector<double> sent = values;
        for (double& v : sent) v = -v;
        std::vector<double> caller = sent;
        upload.upload(caller, column, csr);
        std::fill(caller.begin(), caller.end(), 0.0);
        std::vector<double> expected_column(column_size, kPadding), expected_csr(csr_size, kPadding);
        for (std::size_t k = 0; k < n; ++k) {
          if (slots[k] >= 0)
            expected_column[static_cast<std::size_t>(slots[k])] = sent[k];
          else
            expected_csr[static_cast<std::size_t>(-slots[k] - 1)] = sent[k];
        }
        // Exact in double; quasi-double's 48 bits without fp64.
        const double tol = context()->info().fp64 ? 0.0 : 1e-14 * 1e3;
        const std::vector<double> column_back = read_part(column, column_size), csr_back = read_part(csr, csr_size);
        for (std::size_t i = 0; i < column_size; ++i) ASSERT_NEAR(column_back[i], expected_column[i], tol) << i;
        for (std::size_t i = 0; i < csr_size; ++i) ASSERT_NEAR(csr_back[i], expected_csr[i], tol) << i;
      }
    }
  }
}

TEST(ValueUpload, CsrValuesArriveInPlaceInEveryChunking) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1023}, std::size_t{1025}}) {
    std::mt19937 rng(static_cast<unsigned>(n) + 9);
    std::uniform_real_distribution<double> u(-1e3, 1e3);
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{256}, n, n + 5}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", chunk " + std::to_string(chunk));
      detail::ValueUpload upload(context(), n, chunk);
      const detail::ValueBuffers csr = make_part(n);
      for (int round = 0; round < 2; ++round) {
        std::vector<double> sent(n);
        for (double& v : sent) v = u(rng);
        std::vector<double> caller = sent;
        upload.upload(caller, {}, csr);
        std::fill(caller.begin(), caller.end(), 0.0);
        const double tol = context()->info().fp64 ? 0.0 : 1e-14 * 1e3;
        const std::vector<double> back = read_part(csr, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(back[i], sent[i], tol) << i;
      }
    }
  }
}

TEST(ValueUpload, WrongValueCountIsRefused) {
  detail::ValueUpload scatter(context(), {0, 1, 2}, false);
  const detail::ValueBuffers column = make_part(3);
  EXPECT_THROW(scatter.upload({1.0, 2.0}, column, {}), Error);
  detail::ValueUpload in_place(context(), 3);
  EXPECT_THROW(in_place.upload({1.0, 2.0, 3.0, 4.0}, {}, column), Error);
}

}  // namespace
}  // namespace clkr
