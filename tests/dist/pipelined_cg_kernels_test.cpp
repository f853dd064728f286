// kernels/dist/pipelined_cg.cl through PipelinedCgSteps against a long-double host loop: the fused
// vector updates of pipelined CG and the sums they leave, with and without a preconditioner's vectors,
// in every precision, both launch splits (chunked, grid-stride) and at awkward sizes.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "../../src/dist/pipelined_cg_steps.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

using Values = std::map<std::string, std::vector<double>>;

// The values a vector of precision p holds for v (single rounds to float; quasi-double and double
// keep what the tolerances below can tell apart from v).
std::vector<double> stored(const std::vector<double>& v, Precision p) {
  std::vector<double> out(v);
  if (p == Precision::Single)
    for (double& e : out) e = static_cast<float>(e);
  return out;
}

struct Reference {
  Values after;  // every vector after the update
  Values scale;  // per element, the sum of the magnitudes of the terms that made it
  std::vector<double> sums, sum_scale;
};

// The updates of pipelined_cg.cl's table in long double, from the stored inputs.
Reference reference(const Values& in, double alpha, double beta, bool preconditioned) {
  const std::size_t n = in.at("r").size();
  Reference ref;
  ref.after = in;
  for (const auto& [name, v] : in) ref.scale[name].assign(n, 0.0);
  std::vector<long double> sums(preconditioned ? 3 : 2, 0.0L), scales(sums.size(), 0.0L);
  const long double a = alpha, b = beta;
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = [&](const char* name) { return static_cast<long double>(in.at(name)[i]); };
    const long double z = v("n") + b * v("z");
    const long double q = preconditioned ? v("m") + b * v("q") : 0.0L;
    const long double s = v("w") + b * v("s");
    const long double p = (preconditioned ? v("u") : v("r")) + b * v("p");
    const long double x = v("x") + a * p;
    const long double r = v("r") - a * s;
    const long double u = preconditioned ? v("u") - a * q : r;
    const long double w = v("w") - a * z;
    // Magnitudes: each update's terms, through the vectors they used.
    const long double sz = std::fabs(v("n")) + std::fabs(b * v("z"));
    const long double ss = std::fabs(v("w")) + std::fabs(b * v("s"));
    const long double sp = std::fabs(preconditioned ? v("u") : v("r")) + std::fabs(b * v("p"));
    const long double sq = preconditioned ? std::fabs(v("m")) + std::fabs(b * v("q")) : 0.0L;
    const long double sr = std::fabs(v("r")) + std::fabs(a) * ss;
    const long double su = preconditioned ? std::fabs(v("u")) + std::fabs(a) * sq : sr;
    const long double sw = std::fabs(v("w")) + std::fabs(a) * sz;
    const auto set = [&](const char* name, long double value, long double scale) {
      ref.after[name][i] = static_cast<double>(value);
      ref.scale[name][i] = static_cast<double>(scale);
    };
    set("z", z, sz);
    set("s", s, ss);
    set("p", p, sp);
    set("x", x, std::fabs(v("x")) + std::fabs(a) * sp);
    set("r", r, sr);
    set("w", w, sw);
    if (preconditioned) {
      set("q", q, sq);
      set("u", u, su);
    }
    sums[0] += r * r;
    scales[0] += sr * sr;
    if (preconditioned) {
      sums[1] += r * u;
      sums[2] += w * u;
      scales[1] += sr * su;
      scales[2] += sw * su;
    } else {
      sums[1] += w * r;
      scales[1] += sw * sr;
    }
  }
  for (std::size_t k = 0; k < sums.size(); ++k) {
    ref.sums.push_back(static_cast<double>(sums[k]));
    ref.sum_scale.push_back(static_cast<double>(scales[k]));
  }
  return ref;
}

TEST(PipelinedCgKernels, UpdatesAndSumsMatchTheHostInEveryPrecisionAndSplit) {
  if (rank() != 0) GTEST_SKIP() << "a single-device kernel test: rank 0 runs it";
  for (Precision p : kPrecisions) {
    if (!test::device_supports(*context(), p)) continue;
    for (const bool preconditioned : {false, true}) {
      for (std::size_t n : awkward_sizes()) {
        for (const DeviceParams& params : both_splits()) {
          SCOPED_TRACE(to_string(p) + (preconditioned ? ", with M" : ", without M") + ", n = " + std::to_string(n) +
                       ", " + to_string(params.blas1.variant));
          const std::vector<std::string> names =
              preconditioned ? std::vector<std::string>{"n", "z", "s", "p", "x", "r", "w", "u", "m", "q"}
                             : std::vector<std::string>{"n", "z", "s", "p", "x", "r", "w"};
          Values in;
          unsigned seed = static_cast<unsigned>(n * 31 + (preconditioned ? 7 : 0));
          for (const std::string& name : names) in[name] = stored(random_values(n, ++seed), p);
          const double alpha = 0.7303, beta = -0.41;
          BlasOptions options;
          options.params = params;
          Blas blas(context(), Location::Device, p, options);
          std::map<std::string, Vector> vectors;
          for (const std::string& name : names) vectors.emplace(name, Vector(context(), in[name]));
          detail::PipelinedCgSteps steps(blas, n, preconditioned);
          detail::PipelinedCgSteps::Vectors v{&vectors.at("n"), &vectors.at("z"), &vectors.at("s"), &vectors.at("p"),
                                              &vectors.at("x"), &vectors.at("r"), &vectors.at("w")};
          if (preconditioned) {
            v.u = &vectors.at("u");
            v.m = &vectors.at("m");
            v.q = &vectors.at("q");
          }
          // Stored in the precision as the kernel gets them (single: float alpha and beta).
          const double a = p == Precision::Single ? static_cast<float>(alpha) : alpha;
          const double b = p == Precision::Single ? static_cast<float>(beta) : beta;
          steps.update(alpha, beta, v);
          const std::vector<double> sums = steps.sums();
          const Reference ref = reference(in, a, b, preconditioned);
          // Each element is at most three rounded operations from stored values; a sum adds n products.
          for (const auto& [name, expected] : ref.after) {
            const std::vector<double> got = vectors.at(name).to_host();
            ASSERT_EQ(got.size(), n) << name;
            for (std::size_t i = 0; i < n; ++i)
              ASSERT_LE(std::abs(got[i] - expected[i]), 8 * unit(p) * ref.scale.at(name)[i] + 1e-300)
                  << name << "[" << i << "] = " << got[i] << ", expected " << expected[i];
          }
          ASSERT_EQ(sums.size(), preconditioned ? 3u : 2u);
          for (std::size_t k = 0; k < sums.size(); ++k)
            EXPECT_LE(std::abs(sums[k] - ref.sums[k]), (2.0 * static_cast<double>(n) + 16) * unit(p) * ref.sum_scale[k])
                << "sum " << k << " = " << sums[k] << ", expected " << ref.sums[k];
          if (n == 0)
            for (double s : sums) EXPECT_EQ(s, 0.0);
        }
      }
    }
  }
}

}  // namespace
}  // namespace clkr::dist_test
