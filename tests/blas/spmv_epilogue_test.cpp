// The SpMV kernels' fused epilogues (kernels/spmv/spmv_epilogue.cl, spmv.hpp's SpmvEpilogue: the
// residual y = b - A x, the Chebyshev step r = r_in - A d, d' = c1 d + c2 dinv r, xs += d', and the
// node blocks' correction y = d' = c1 d_prev + c2 B r, xs += d' or xs = d') in every
// kernel that takes one and every precision (single also on binary16 values, ValueStorage::Half, the
// AMG smoothers' option), and their host version, against a long double reference
// on the awkward shapes of spmv_test_support.hpp (empty rows, a 3000-entry row, sizes around powers of
// two) with poisoned outputs; operands that alias (b or r_in being y); the last step, which must leave
// r and d' alone; and the operands the kernels must refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "clkr/runtime/error.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A kernel and its launch: each CSR kernel forced by its parameters, the other formats as they come.
struct EpilogueKernel {
  std::string name;
  Format format;
  SpmvParams params;
};

std::vector<EpilogueKernel> epilogue_kernels() {
  SpmvParams scalar, vector, groups, items, blocks_of_seven;
  scalar.csr_vector_min_mean_row_length = std::numeric_limits<double>::infinity();
  vector.csr_vector_min_mean_row_length = 0;
  vector.vector_lanes = 4;
  vector.work_group_size = 64;
  groups.csr_balanced_min_row_ratio = items.csr_balanced_min_row_ratio = 0;
  groups.work_group_size = 64;
  items.csr_balanced_blocks = RowBlocking::WorkItem;
  blocks_of_seven.rows_per_work_item = 7;  // a CPU's blocks of rows, at an awkward size
  blocks_of_seven.work_group_size = 32;
  return {{"csr_scalar", Format::Csr, scalar},
          {"csr_vector", Format::Csr, vector},
          {"csr_balanced_groups", Format::Csr, groups},
          {"csr_balanced_items", Format::Csr, items},
          {"csr4", Format::Csr4, {}},
          {"ell", Format::Ell, {}},
          {"ell_blocks_of_7", Format::Ell, blocks_of_seven},
          {"sell", Format::Sell, {}},
          {"dia", Format::Dia, {}},
          {"dia_blocks_of_7", Format::Dia, blocks_of_seven}};
}

// The operands of one case, as the device stores them in precision p (so that only the arithmetic is
// measured), and the long double results with the magnitudes their rounding errors scale with.
struct Operands {
  std::vector<double> x, b, dinv, r_in, xs;
  double c1 = -0.35, c2 = 1.0 / 3.0;
};

Operands random_operands(const HostCsrMatrix& H, std::uint32_t seed) {
  Operands o;
  o.x = random_vector(static_cast<std::size_t>(H.cols), seed);
  o.b = random_vector(static_cast<std::size_t>(H.rows), seed + 1);
  o.r_in = random_vector(static_cast<std::size_t>(H.rows), seed + 2);
  o.xs = random_vector(static_cast<std::size_t>(H.rows), seed + 3);
  o.dinv = random_vector(static_cast<std::size_t>(H.rows), seed + 4);
  for (double& v : o.dinv) v = std::fabs(v) + 0.25;  // an inverse diagonal: positive
  return o;
}

struct Expected {
  std::vector<long double> value, scale;
};

struct ChebyshevExpected {
  Expected r, d, xs;
};

std::vector<long double> row_sums(const HostCsrMatrix& H, const std::vector<double>& x, Precision p,
                                  std::vector<long double>& scale) {
  std::vector<long double> s(static_cast<std::size_t>(H.rows), 0);
  scale.assign(s.size(), 0);
  for (std::int32_t i = 0; i < H.rows; ++i)
    for (std::int64_t k = H.row_offsets[i]; k < H.row_offsets[i + 1]; ++k) {
      const long double term = stored(H.values[k], p) * stored(x[H.col_indices[k]], p);
      s[i] += term;
      scale[i] += std::fabs(term);
    }
  return s;
}

Expected residual_reference(const HostCsrMatrix& H, const Operands& o, Precision p) {
  Expected e;
  const std::vector<long double> s = row_sums(H, o.x, p, e.scale);
  for (std::size_t i = 0; i < s.size(); ++i) {
    e.value.push_back(stored(o.b[i], p) - s[i]);
    e.scale[i] += std::fabs(stored(o.b[i], p));
  }
  return e;
}

ChebyshevExpected chebyshev_reference(const HostCsrMatrix& H, const Operands& o, Precision p) {
  ChebyshevExpected e;
  std::vector<long double> s_scale;
  const std::vector<long double> s = row_sums(H, o.x, p, s_scale);
  const long double c1 = stored(o.c1, p), c2 = stored(o.c2, p);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const long double r = stored(o.r_in[i], p) - s[i], r_scale = std::fabs(stored(o.r_in[i], p)) + s_scale[i];
    const long double d = c1 * stored(o.x[i], p) + c2 * stored(o.dinv[i], p) * r;
    const long double d_scale = std::fabs(c1 * stored(o.x[i], p)) + std::fabs(c2 * stored(o.dinv[i], p)) * r_scale;
    e.r.value.push_back(r);
    e.r.scale.push_back(r_scale);
    e.d.value.push_back(d);
    e.d.scale.push_back(d_scale);
    e.xs.value.push_back(stored(o.xs[i], p) + d);
    e.xs.scale.push_back(std::fabs(stored(o.xs[i], p)) + d_scale);
  }
  return e;
}

// The residual's correction d = c2 dinv r (the residual with -DSPMV_RESIDUAL_CORRECTION).
Expected residual_correction_reference(const Expected& r, const Operands& o, Precision p) {
  Expected d;
  const long double c2 = stored(o.c2, p);
  for (std::size_t i = 0; i < r.value.size(); ++i) {
    d.value.push_back(c2 * stored(o.dinv[i], p) * r.value[i]);
    d.scale.push_back(std::fabs(c2 * stored(o.dinv[i], p)) * r.scale[i]);
  }
  return d;
}

// xs after a Chebyshev step whose previous correction (x) was pending: xs + x + d, or x + d when set.
Expected pending_reference(const ChebyshevExpected& e, const Operands& o, Precision p, bool set) {
  Expected xs;
  for (std::size_t i = 0; i < e.d.value.size(); ++i) {
    const long double old = set ? 0 : stored(o.xs[i], p);
    xs.value.push_back(old + stored(o.x[i], p) + e.d.value[i]);
    xs.scale.push_back(std::fabs(old) + std::fabs(stored(o.x[i], p)) + e.d.scale[i]);
  }
  return xs;
}

// The correction from the matrix's SpMV of the residual x: d = c1 d_prev + c2 s (c2 s without d_prev),
// xs + d, or d itself with set_x.
struct CorrectionExpected {
  Expected d, xs;
};

CorrectionExpected correction_reference(const HostCsrMatrix& H, const Operands& o, Precision p, bool from_d,
                                        bool set_x) {
  CorrectionExpected e;
  std::vector<long double> s_scale;
  const std::vector<long double> s = row_sums(H, o.x, p, s_scale);
  const long double c1 = stored(o.c1, p), c2 = stored(o.c2, p);
  for (std::size_t i = 0; i < s.size(); ++i) {
    // d_prev is r_in's values (a vector of A's rows).
    const long double prev = from_d ? c1 * stored(o.r_in[i], p) : 0;
    const long double d = prev + c2 * s[i], d_scale = std::fabs(prev) + std::fabs(c2) * s_scale[i];
    e.d.value.push_back(d);
    e.d.scale.push_back(d_scale);
    e.xs.value.push_back(set_x ? d : stored(o.xs[i], p) + d);
    e.xs.scale.push_back(set_x ? d_scale : std::fabs(stored(o.xs[i], p)) + d_scale);
  }
  return e;
}

detail::SpmvEpilogue correction(const Operands& o, Vector* d_prev, Vector& xs, bool set_x) {
  detail::SpmvEpilogue e;
  e.kind = detail::SpmvEpilogue::Kind::Correction;
  e.c1 = o.c1;
  e.c2 = o.c2;
  e.d_prev = d_prev;
  e.xs = &xs;
  e.set_x = set_x;
  return e;
}

// Within twice the SpMV tolerance of the row (the epilogue adds a few roundings to the row sum's).
void expect_near(const Expected& e, const std::vector<double>& got, const HostCsrMatrix& H, Precision p,
                 const std::string& what) {
  ASSERT_EQ(got.size(), e.value.size()) << what;
  int reported = 0;
  for (std::size_t i = 0; i < got.size() && reported < 5; ++i) {
    const auto length = static_cast<std::int32_t>(H.row_offsets[i + 1] - H.row_offsets[i]);
    const long double error = std::fabs(static_cast<long double>(got[i]) - e.value[i]);
    const long double allowed = 2 * tolerance(p, length) * e.scale[i];
    if (!std::isfinite(got[i]) || error > allowed) {
      ++reported;
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", expected " << static_cast<double>(e.value[i])
                    << " (error " << static_cast<double>(error) << ", allowed " << static_cast<double>(allowed)
                    << ", row length " << length << ")";
    }
  }
}

void expect_all_nan(const std::vector<double>& got, const std::string& what) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!std::isnan(got[i])) {
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << " was written; it must be left alone";
      return;
    }
}

// An input the kernel must only read: still the values it was given, as stored in precision p.
void expect_unchanged(Vector& v, const std::vector<double>& given, Precision p, const std::string& what) {
  const std::vector<double> now = read_device(v, p);
  ASSERT_EQ(now.size(), given.size()) << what;
  for (std::size_t i = 0; i < given.size(); ++i)
    ASSERT_EQ(static_cast<long double>(now[i]), stored(given[i], p)) << what << " changed at " << i;
}

// Device vectors in precision p (NaN ones made on the device, so that nothing uploads over them).
Vector device_vector(const std::vector<double>& v, const std::string& name) { return Vector(test_context(), v, name); }
Vector poisoned(std::size_t n, Precision p, const std::string& name) {
  Vector v(test_context(), n, name);
  v.fill(kNaN, p);
  return v;
}

bool is_square(const Shape& s) { return s.rows == s.cols; }

// A Chebyshev step's epilogue with the operands' scalars.
detail::SpmvEpilogue chebyshev_step(const Operands& o, Vector& dinv, Vector& r_in, Vector& d_out, Vector& xs,
                                    bool last) {
  detail::SpmvEpilogue e;
  e.kind = detail::SpmvEpilogue::Kind::Chebyshev;
  e.c1 = o.c1;
  e.c2 = o.c2;
  e.dinv = &dinv;
  e.r_in = &r_in;
  e.d_out = &d_out;
  e.xs = &xs;
  e.last = last;
  return e;
}

// An index into epilogue_kernels(), the precision, and how the kernel reads A's values.
using KernelPrecision = std::tuple<std::size_t, Precision, ValueStorage>;

std::string kernel_precision_name(const testing::TestParamInfo<KernelPrecision>& info) {
  return epilogue_kernels()[std::get<0>(info.param)].name + "_" + to_string(std::get<1>(info.param)) +
         (std::get<2>(info.param) == ValueStorage::Half ? "_half_values" : "");
}

class SpmvEpilogueDevice : public testing::TestWithParam<KernelPrecision> {
 protected:
  void SetUp() override {
    kernel_ = epilogue_kernels()[std::get<0>(GetParam())];
    p_ = std::get<1>(GetParam());
    storage_ = std::get<2>(GetParam());
    if (!can_run(p_)) GTEST_SKIP() << "device has no fp64";
  }
  cl::Event run(Matrix& A, Vector& x, Vector& y, const detail::SpmvEpilogue& e) {
    return detail::spmv_device(*test_context(), kernel_.params, p_, false, -1.0, A, x, 1.0, y, nullptr, &e, storage_);
  }
  EpilogueKernel kernel_;
  Precision p_ = Precision::Single;
  ValueStorage storage_ = ValueStorage::Working;
};

TEST_P(SpmvEpilogueDevice, ResidualMatchesTheReference) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    const HostCsrMatrix H = random_matrix(shape, 200 + static_cast<std::uint32_t>(s));
    Matrix A(test_context(), H, kernel_.format, test_matrix_options());
    const Operands o = random_operands(H, 40 + static_cast<std::uint32_t>(s));
    const Expected expected = residual_reference(as_computed(A, H, storage_), o, p_);
    const std::string what = kernel_.name + " " + shape.name + " " + to_string(p_);
    Vector x = device_vector(o.x, "x"), b = device_vector(o.b, "b");
    Vector y = poisoned(o.b.size(), p_, "y");  // written, never read
    detail::SpmvEpilogue e;
    e.kind = detail::SpmvEpilogue::Kind::Residual;
    e.b = &b;
    run(A, x, y, e);
    expect_near(expected, read_device(y, p_), H, p_, what + " y");
    // b may be y itself: the residual in place of b.
    Vector y_is_b = device_vector(o.b, "y_is_b");
    e.b = &y_is_b;
    run(A, x, y_is_b, e);
    expect_near(expected, read_device(y_is_b, p_), H, p_, what + " y = b");
    expect_unchanged(x, o.x, p_, what + ": x");
    expect_unchanged(b, o.b, p_, what + ": b");
  }
}

// The residual with a Chebyshev sweep's first correction: y = r = b - A x, d_out = c2 dinv r; b apart
// or y itself; x and b left alone.
TEST_P(SpmvEpilogueDevice, ResidualWithCorrectionMatchesTheReference) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    const HostCsrMatrix H = random_matrix(shape, 600 + static_cast<std::uint32_t>(s));
    Matrix A(test_context(), H, kernel_.format, test_matrix_options());
    const Operands o = random_operands(H, 130 + static_cast<std::uint32_t>(s));
    const Expected expected = residual_reference(as_computed(A, H, storage_), o, p_);
    const Expected expected_d = residual_correction_reference(expected, o, p_);
    for (const bool b_is_y : {false, true}) {
      const std::string what = kernel_.name + " " + shape.name + " " + to_string(p_) + (b_is_y ? " b = y" : "");
      Vector x = device_vector(o.x, "x"), b = device_vector(o.b, "b"), dinv = device_vector(o.dinv, "dinv");
      Vector y = b_is_y ? device_vector(o.b, "y") : poisoned(o.b.size(), p_, "y");
      Vector d = poisoned(o.b.size(), p_, "d");
      detail::SpmvEpilogue e;
      e.kind = detail::SpmvEpilogue::Kind::Residual;
      e.b = b_is_y ? &y : &b;
      e.c2 = o.c2;
      e.dinv = &dinv;
      e.d_out = &d;
      run(A, x, y, e);
      expect_near(expected, read_device(y, p_), H, p_, what + " y");
      expect_near(expected_d, read_device(d, p_), H, p_, what + " d");
      expect_unchanged(x, o.x, p_, what + ": x");
      expect_unchanged(b, o.b, p_, what + ": b");
    }
  }
}

// A step with the previous correction pending: added with its own (xs += d + d') or set (xs = d + d',
// xs poisoned: its old values must not be read); as a middle step and as the last.
TEST_P(SpmvEpilogueDevice, ChebyshevStepAddsThePendingCorrection) {
  for (const char* name : {"1x1", "3x3", "257x257", "1025x1025", "long_row_600x3100"}) {
    const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
    Shape square = *shape;
    square.cols = square.rows;
    square.long_row = std::min(square.long_row, square.rows);
    const HostCsrMatrix H = random_matrix(square, 29);
    Matrix A(test_context(), H, kernel_.format, test_matrix_options());
    const Operands o = random_operands(H, 31);
    const ChebyshevExpected expected = chebyshev_reference(as_computed(A, H, storage_), o, p_);
    const std::size_t n = o.b.size();
    for (const bool set : {false, true})
      for (const bool last : {false, true}) {
        const std::string what =
            kernel_.name + " " + name + " " + to_string(p_) + (set ? " set" : " add") + (last ? " last" : "");
        Vector x = device_vector(o.x, "d"), dinv = device_vector(o.dinv, "dinv"), r_in = device_vector(o.r_in, "r_in");
        Vector xs = set ? poisoned(n, p_, "xs") : device_vector(o.xs, "xs");
        Vector y = poisoned(n, p_, "r"), d_out = poisoned(n, p_, "d_out");
        detail::SpmvEpilogue e = chebyshev_step(o, dinv, r_in, d_out, xs, last);
        e.pending = set ? detail::SpmvEpilogue::Pending::Set : detail::SpmvEpilogue::Pending::Add;
        run(A, x, y, e);
        expect_near(pending_reference(expected, o, p_, set), read_device(xs, p_), H, p_, what + " xs");
        if (last) {
          expect_all_nan(read_device(y, p_), what + " r");
          expect_all_nan(read_device(d_out, p_), what + " d_out");
        } else {
          expect_near(expected.r, read_device(y, p_), H, p_, what + " r");
          expect_near(expected.d, read_device(d_out, p_), H, p_, what + " d_out");
        }
      }
  }
}

TEST_P(SpmvEpilogueDevice, ChebyshevStepMatchesTheReference) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    if (!is_square(shape)) continue;  // x is the previous correction, indexed by row
    const HostCsrMatrix H = random_matrix(shape, 300 + static_cast<std::uint32_t>(s));
    Matrix A(test_context(), H, kernel_.format, test_matrix_options());
    const Operands o = random_operands(H, 70 + static_cast<std::uint32_t>(s));
    const ChebyshevExpected expected = chebyshev_reference(as_computed(A, H, storage_), o, p_);
    const std::size_t n = o.b.size();
    for (const bool r_in_is_y : {false, true}) {
      const std::string what =
          kernel_.name + " " + shape.name + " " + to_string(p_) + (r_in_is_y ? " r_in = y" : " r_in apart");
      Vector x = device_vector(o.x, "d"), dinv = device_vector(o.dinv, "dinv"), xs = device_vector(o.xs, "xs");
      Vector r_in = device_vector(o.r_in, "r_in");
      Vector y = r_in_is_y ? device_vector(o.r_in, "r") : poisoned(n, p_, "r");
      Vector d_out = poisoned(n, p_, "d_out");
      run(A, x, y, chebyshev_step(o, dinv, r_in_is_y ? y : r_in, d_out, xs, false));
      expect_near(expected.r, read_device(y, p_), H, p_, what + " r");
      expect_near(expected.d, read_device(d_out, p_), H, p_, what + " d_out");
      expect_near(expected.xs, read_device(xs, p_), H, p_, what + " xs");
      expect_unchanged(x, o.x, p_, what + ": d");
    }
  }
}

TEST_P(SpmvEpilogueDevice, TheLastChebyshevStepWritesOnlyXs) {
  for (const char* name : {"1x1", "257x257", "1025x1025", "long_row_600x3100"}) {
    const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
    Shape square = *shape;
    square.cols = square.rows;  // the long row, in a square matrix
    square.long_row = std::min(square.long_row, square.rows);
    const HostCsrMatrix H = random_matrix(square, 17);
    Matrix A(test_context(), H, kernel_.format, test_matrix_options());
    const Operands o = random_operands(H, 23);
    const ChebyshevExpected expected = chebyshev_reference(as_computed(A, H, storage_), o, p_);
    const std::size_t n = o.b.size();
    const std::string what = kernel_.name + " " + name + " " + to_string(p_) + " last";
    Vector x = device_vector(o.x, "d"), dinv = device_vector(o.dinv, "dinv"), xs = device_vector(o.xs, "xs");
    Vector r_in = device_vector(o.r_in, "r_in");
    Vector y = poisoned(n, p_, "r"), d_out = poisoned(n, p_, "d_out");
    run(A, x, y, chebyshev_step(o, dinv, r_in, d_out, xs, true));
    expect_near(expected.xs, read_device(xs, p_), H, p_, what + " xs");
    expect_all_nan(read_device(y, p_), what + " r");
    expect_all_nan(read_device(d_out, p_), what + " d_out");
  }
}

// d_prev absent, apart from y, or y itself; xs added to or set (its poisoned old values then unread).
TEST_P(SpmvEpilogueDevice, NodeBlockCorrectionMatchesTheReference) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    const HostCsrMatrix H = random_matrix(shape, 500 + static_cast<std::uint32_t>(s));
    Matrix A(test_context(), H, kernel_.format, test_matrix_options());
    const Operands o = random_operands(H, 110 + static_cast<std::uint32_t>(s));
    const HostCsrMatrix computed = as_computed(A, H, storage_);
    const std::size_t n = o.b.size();
    for (const int d_prev_case : {0, 1, 2}) {
      for (const bool set_x : {false, true}) {
        const CorrectionExpected expected = correction_reference(computed, o, p_, d_prev_case > 0, set_x);
        const std::string what = kernel_.name + " " + shape.name + " " + to_string(p_) +
                                 (d_prev_case == 0   ? " no d_prev"
                                  : d_prev_case == 1 ? " d_prev apart"
                                                     : " d_prev = y") +
                                 (set_x ? " set x" : " add to x");
        Vector x = device_vector(o.x, "r"), d_prev = device_vector(o.r_in, "d_prev");
        Vector xs = set_x ? poisoned(n, p_, "xs") : device_vector(o.xs, "xs");
        Vector y = d_prev_case == 2 ? device_vector(o.r_in, "d") : poisoned(n, p_, "d");
        Vector* prev = d_prev_case == 0 ? nullptr : d_prev_case == 1 ? &d_prev : &y;
        run(A, x, y, correction(o, prev, xs, set_x));
        expect_near(expected.d, read_device(y, p_), H, p_, what + " d");
        expect_near(expected.xs, read_device(xs, p_), H, p_, what + " xs");
        expect_unchanged(x, o.x, p_, what + ": r");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, SpmvEpilogueDevice,
                         testing::Combine(testing::Range<std::size_t>(0, epilogue_kernels().size()),
                                          testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                                          testing::Values(ValueStorage::Working)),
                         kernel_precision_name);
INSTANTIATE_TEST_SUITE_P(EveryKernelHalfValues, SpmvEpilogueDevice,
                         testing::Combine(testing::Range<std::size_t>(0, epilogue_kernels().size()),
                                          testing::Values(Precision::Single), testing::Values(ValueStorage::Half)),
                         kernel_precision_name);

// The host version computes in double from the operands' double values.
TEST(SpmvEpilogueHost, MatchesTheReferenceInDouble) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    const HostCsrMatrix H = random_matrix(shape, 400 + static_cast<std::uint32_t>(s));
    Matrix A(test_context(), H, Format::Csr);
    const Operands o = random_operands(H, 90 + static_cast<std::uint32_t>(s));
    const std::size_t n = o.b.size();
    Vector x(test_context(), o.x, "x"), b(test_context(), o.b, "b");
    Vector y(test_context(), std::vector<double>(n, kNaN), "y");
    detail::SpmvEpilogue residual;
    residual.kind = detail::SpmvEpilogue::Kind::Residual;
    residual.b = &b;
    detail::spmv_epilogue_host(A, x, y, residual);
    const Expected expected_r = residual_reference(H, o, Precision::Double);
    expect_near(expected_r, y.to_host(), H, Precision::Double, shape.name + " y");
    {
      Vector dinv(test_context(), o.dinv, "dinv"), d(test_context(), std::vector<double>(n, kNaN), "d");
      Vector r(test_context(), std::vector<double>(n, kNaN), "r");
      detail::SpmvEpilogue with_d = residual;
      with_d.c2 = o.c2;
      with_d.dinv = &dinv;
      with_d.d_out = &d;
      detail::spmv_epilogue_host(A, x, r, with_d);
      expect_near(expected_r, r.to_host(), H, Precision::Double, shape.name + " r with correction");
      expect_near(residual_correction_reference(expected_r, o, Precision::Double), d.to_host(), H, Precision::Double,
                  shape.name + " correction");
    }
    if (!is_square(shape)) continue;
    const ChebyshevExpected expected = chebyshev_reference(H, o, Precision::Double);
    for (const bool last : {false, true}) {
      Vector dinv(test_context(), o.dinv, "dinv"), r_in(test_context(), o.r_in, "r_in"), xs(test_context(), o.xs, "xs");
      Vector r(test_context(), std::vector<double>(n, kNaN), "r"),
          d_out(test_context(), std::vector<double>(n, kNaN), "d");
      detail::spmv_epilogue_host(A, x, r, chebyshev_step(o, dinv, r_in, d_out, xs, last));
      const std::string what = shape.name + (last ? " last" : "");
      expect_near(expected.xs, xs.to_host(), H, Precision::Double, what + " xs");
      if (last) {
        expect_all_nan(r.to_host(), what + " r");
        expect_all_nan(d_out.to_host(), what + " d_out");
      } else {
        expect_near(expected.r, r.to_host(), H, Precision::Double, what + " r");
        expect_near(expected.d, d_out.to_host(), H, Precision::Double, what + " d_out");
      }
    }
    for (const bool set : {false, true}) {
      Vector dinv(test_context(), o.dinv, "dinv"), r_in(test_context(), o.r_in, "r_in");
      Vector xs(test_context(), set ? std::vector<double>(n, kNaN) : o.xs, "xs");
      Vector r(test_context(), n, "r"), d_out(test_context(), n, "d");
      detail::SpmvEpilogue e = chebyshev_step(o, dinv, r_in, d_out, xs, false);
      e.pending = set ? detail::SpmvEpilogue::Pending::Set : detail::SpmvEpilogue::Pending::Add;
      detail::spmv_epilogue_host(A, x, r, e);
      expect_near(pending_reference(expected, o, Precision::Double, set), xs.to_host(), H, Precision::Double,
                  shape.name + (set ? " pending set" : " pending add"));
    }
    for (const bool set_x : {false, true}) {
      const CorrectionExpected expected = correction_reference(H, o, Precision::Double, true, set_x);
      Vector d_prev(test_context(), o.r_in, "d_prev"), xs(test_context(), o.xs, "xs");
      Vector d(test_context(), std::vector<double>(n, kNaN), "d");
      detail::spmv_epilogue_host(A, x, d, correction(o, &d_prev, xs, set_x));
      const std::string what = shape.name + (set_x ? " correction, set x" : " correction");
      expect_near(expected.d, d.to_host(), H, Precision::Double, what + " d");
      expect_near(expected.xs, xs.to_host(), H, Precision::Double, what + " xs");
    }
  }
}

// HYB's second pass adds to what its first stored, so it takes no epilogue; a Chebyshev step cannot
// write the x it reads in other rows, nor write one vector twice, and needs a square matrix and operands
// of A's size.
TEST(SpmvEpilogueErrors, RefusesWhatTheKernelsCannotDo) {
  const HostCsrMatrix H = random_matrix({"8x8", 8, 8}, 5);
  Matrix hyb(test_context(), H, Format::Hyb, test_matrix_options());
  Matrix csr(test_context(), H, Format::Csr);
  Vector x(test_context(), 8, "x"), y(test_context(), 8, "y"), b(test_context(), 8, "b");
  Vector dinv(test_context(), 8, "dinv"), d_out(test_context(), 8, "d_out"), xs(test_context(), 8, "xs");
  Vector short_b(test_context(), 7, "short_b");
  const auto fails = [&](Matrix& A, Vector& in, Vector& out, const detail::SpmvEpilogue& e, const std::string& text) {
    for (const bool host : {false, true}) {
      try {
        if (host) {
          detail::spmv_epilogue_host(A, in, out, e);
        } else {
          detail::spmv_device(*test_context(), SpmvParams{}, Precision::Single, false, -1.0, A, in, 1.0, out, nullptr,
                              &e);
        }
        ADD_FAILURE() << "no error; expected one saying '" << text << "'";
      } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
      }
    }
  };
  detail::SpmvEpilogue residual;
  residual.kind = detail::SpmvEpilogue::Kind::Residual;
  residual.b = &b;
  try {
    detail::spmv_device(*test_context(), SpmvParams{}, Precision::Single, false, -1.0, hyb, x, 1.0, y, nullptr,
                        &residual);
    ADD_FAILURE() << "HYB took an epilogue";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("hyb takes no fused epilogue"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(detail::spmv_epilogue_supported(hyb));
  EXPECT_TRUE(detail::spmv_epilogue_supported(csr));
  residual.b = &short_b;
  fails(csr, x, y, residual, "the epilogue's b ('short_b') has 7 elements, A has 8 rows");
  residual.b = nullptr;
  fails(csr, x, y, residual, "the epilogue's b is missing");
  // The residual's correction: d_out needs dinv and must be a vector of its own.
  residual.b = &b;
  residual.d_out = &d_out;
  fails(csr, x, y, residual, "the epilogue's dinv is missing");
  residual.dinv = &dinv;
  for (Vector* clash : {&x, &y, &b, &dinv}) {
    residual.d_out = clash;
    fails(csr, x, y, residual, "must differ from x, y, b and dinv");
  }

  detail::SpmvEpilogue step;
  step.kind = detail::SpmvEpilogue::Kind::Chebyshev;
  step.dinv = &dinv;
  step.r_in = &y;
  step.d_out = &x;  // the vector every row reads
  step.xs = &xs;
  fails(csr, x, y, step, "cannot write x ('x'): other rows still read it");
  step.d_out = &d_out;
  step.xs = &d_out;
  fails(csr, x, y, step, "they must be three different vectors");
  step.xs = &xs;
  const HostCsrMatrix R = random_matrix({"8x5", 8, 5}, 6);
  Matrix rectangular(test_context(), R, Format::Csr);
  Vector x5(test_context(), 5, "x5");
  fails(rectangular, x5, y, step, "a Chebyshev step needs a square matrix");

  detail::SpmvEpilogue blocks;
  blocks.kind = detail::SpmvEpilogue::Kind::Correction;
  blocks.xs = &x;  // the residual every row reads
  fails(csr, x, y, blocks, "xs must differ from x and y");
  blocks.xs = &y;
  fails(csr, x, y, blocks, "xs must differ from x and y");
  blocks.xs = &xs;
  blocks.d_prev = &x;
  fails(csr, x, y, blocks, "d_prev from x");
  blocks.d_prev = &short_b;
  fails(csr, x, y, blocks, "the epilogue's d_prev ('short_b') has 7 elements");
  blocks.d_prev = nullptr;
  blocks.xs = nullptr;
  fails(csr, x, y, blocks, "the epilogue's xs is missing");
}

}  // namespace
}  // namespace clkr
