// `clkr solve --precond amg` with the options of the AMG's coarsening and update: --amg-block-size auto,
// --amg-aggressive and --amg-update-eigen are accepted and take effect, bad values exit 2 with one line.
#include <string>
#include <vector>

#include "app_test_support.hpp"

using namespace app_test;

namespace {

// The operator complexity from the "precond" line of `clkr solve`.
double operator_complexity(const std::string& out) {
  const std::string key = "operator complexity ";
  const auto at = out.find(key);
  return at == std::string::npos ? 0.0 : std::stod(out.substr(at + key.size()));
}

TEST(AmgOptionsCommand, AggressiveCoarseningLowersTheComplexity) {
  const Result plain = run_clkr({"solve", "poisson3d:16", "--precond", "amg"});
  const Result aggressive = run_clkr({"solve", "poisson3d:16", "--precond", "amg", "--amg-aggressive", "1"});
  ASSERT_EQ(plain.code, 0) << describe(plain);
  ASSERT_EQ(aggressive.code, 0) << describe(aggressive);
  EXPECT_GT(operator_complexity(plain.out), 1.3) << plain.out;
  EXPECT_LT(operator_complexity(aggressive.out), operator_complexity(plain.out) - 0.2) << aggressive.out;
}

TEST(AmgOptionsCommand, BlockSizeAutoAndUpdateEigenAreAccepted) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--amg-block-size", "auto"},
                                                {"--amg-block-size", "1"},
                                                {"--amg-update-eigen", "0"},
                                                {"--amg-update-eigen", "10"}}) {
    std::vector<std::string> args = {"solve", "poisson2d:24", "--precond", "amg"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_clkr(args);
    EXPECT_EQ(r.code, 0) << extra[0] << " " << extra[1] << "\n" << describe(r);
  }
}

// --precond-precision half: single arithmetic on binary16 values, in the report's description, the
// JSON's matrix_values and each level's values: binary16, or single where the one-launch cycle reads
// the level (amg_cycle.*: on NVIDIA the whole of this small problem's cycle), which the description
// then names.
TEST(AmgOptionsCommand, HalfPrecisionValues) {
  const Result text = run_clkr({"solve", "poisson3d:16", "--precond", "amg", "--precond-precision", "half"});
  ASSERT_EQ(text.code, 0) << describe(text);
  EXPECT_NE(text.out.find("single, half values"), std::string::npos) << text.out;
  const Result json = run_clkr({"solve", "poisson3d:16", "--precond", "amg", "--precond-precision", "half", "--json"});
  ASSERT_EQ(json.code, 0) << describe(json);
  EXPECT_NE(json.out.find("\"matrix_values\":\"half\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"precision\":\"single\""), std::string::npos) << json.out;
  const std::size_t levels = occurrences(json.out, "\"rows\":");
  const std::size_t half = occurrences(json.out, "\"values\":\"half\"");
  const std::size_t single = occurrences(json.out, "\"values\":\"single\"");
  ASSERT_GE(levels, 2u) << json.out;
  EXPECT_EQ(half + single, levels) << json.out;
  if (single == 0) {
    EXPECT_EQ(text.out.find("single values on level"), std::string::npos) << text.out;
  } else {
    EXPECT_NE(text.out.find("single values on level"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("in one launch"), std::string::npos) << text.out;
  }
}

TEST(AmgOptionsCommand, BadValuesExitTwoWithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--precond", "amg", "--amg-update-eigen", "1"}, "--amg-update-eigen 1"},
      {{"--precond", "amg", "--amg-aggressive", "-1"}, "--amg-aggressive"},
      {{"--precond", "amg", "--amg-block-size", "many"}, "--amg-block-size"},
      {{"--precond", "jacobi", "--amg-aggressive", "1"}, "applies to --precond amg only"},
      {{"--precond", "amg", "--precond-precision", "quarter"}, "half"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = {"solve", "poisson2d:24"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_clkr(args);
    EXPECT_EQ(r.code, 2) << message << "\n" << describe(r);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in " << r.err;
  }
}

}  // namespace

namespace {

// `clkr bench solve` times the update step with a double, a single-precision and a binary16-valued
// hierarchy: every row
// converges, the update rows' notes hold the update's phases, and an unknown method exits 2.
TEST(AmgOptionsCommand, BenchSolveTimesUpdatesInBothPrecisions) {
  const fs::path csv = scratch_dir() / "bench_solve_update.csv";
  const Result r = run_clkr({"bench", "solve", "poisson3d:12", "--methods",
                             "amg,amg-update,amg-update-single,amg-half,amg-update-half", "--peers", "none", "--reps",
                             "1", "--csv", csv.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = read_text(csv);
  for (const char* method : {",amg,", ",amg-update,", ",amg-update-single,", ",amg-half,", ",amg-update-half,"})
    EXPECT_NE(text.find(method), std::string::npos) << method << " missing from\n" << text;
  EXPECT_EQ(text.find("error"), std::string::npos) << text;
  EXPECT_NE(text.find("update: "), std::string::npos) << text;
  const Result bad = run_clkr({"bench", "solve", "poisson3d:8", "--methods", "amg-updated", "--peers", "none"});
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("amg-update-single"), std::string::npos) << bad.err;
}

}  // namespace
