// `clkr solve --precond amg` with the options of the AMG's coarsening, smoothing and update:
// --amg-block-size auto, --amg-aggressive, --amg-block-smoothing, --amg-update-eigen,
// --amg-prolongator-relaxation, --amg-near-null-space (with --coordinates) and --amg-test-vectors are accepted and
// take effect, bad values exit 2 with one line.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app_test_support.hpp"
#include "clkr/io/generators.hpp"

using namespace app_test;

namespace {

// The report's "iterations  N" line.
std::string iterations_line(const std::string& report) {
  const std::size_t at = report.find("\niterations ");
  return at == std::string::npos ? std::string() : report.substr(at + 1, report.find('\n', at + 1) - at - 1);
}

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

// --amg-prolongator-relaxation 0 is plain aggregation: named in the report, with a lower operator
// complexity than smoothed aggregation's on the same aggregates, and still converging.
TEST(AmgOptionsCommand, PlainAggregationIsReportedAndSparser) {
  const std::string matrix = std::string(CLKR_SOURCE_DIR) + "/matrices/bcsstk14.mtx";
  const Result smoothed = run_clkr({"solve", matrix, "--precond", "amg"});
  const Result plain = run_clkr({"solve", matrix, "--precond", "amg", "--amg-prolongator-relaxation", "0"});
  ASSERT_EQ(smoothed.code, 0) << describe(smoothed);
  ASSERT_EQ(plain.code, 0) << describe(plain);
  EXPECT_NE(smoothed.out.find("(smoothed aggregation,"), std::string::npos) << smoothed.out;
  EXPECT_NE(plain.out.find("(plain aggregation,"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("converged"), std::string::npos) << plain.out;
  EXPECT_LT(operator_complexity(plain.out), operator_complexity(smoothed.out)) << plain.out;
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

// --amg-block-smoothing on, on a matrix with nodes (the bundled bcsstk14: 6 unknowns a node, read from
// its pattern), smooths with the node blocks, which the report names; off does not; auto (the
// default) is on; 1 and 0 are taken for on and off.
TEST(AmgOptionsCommand, BlockSmoothingIsReported) {
  const std::string matrix = std::string(CLKR_SOURCE_DIR) + "/matrices/bcsstk14.mtx";
  const Result blocks = run_clkr({"solve", matrix, "--precond", "amg", "--amg-block-smoothing", "on"});
  const Result point = run_clkr({"solve", matrix, "--precond", "amg", "--amg-block-smoothing", "off"});
  const Result one = run_clkr({"solve", matrix, "--precond", "amg", "--amg-block-smoothing", "1"});
  const Result automatic = run_clkr({"solve", matrix, "--precond", "amg"});
  for (const Result* r : {&blocks, &point, &one, &automatic}) ASSERT_EQ(r->code, 0) << describe(*r);
  EXPECT_NE(blocks.out.find("node-block chebyshev"), std::string::npos) << blocks.out;
  EXPECT_NE(one.out.find("node-block chebyshev"), std::string::npos) << one.out;
  EXPECT_EQ(point.out.find("node-block"), std::string::npos) << point.out;
  ASSERT_FALSE(iterations_line(blocks.out).empty()) << blocks.out;
  EXPECT_NE(iterations_line(blocks.out), iterations_line(point.out));
  EXPECT_NE(automatic.out.find("node-block chebyshev"), std::string::npos) << automatic.out;
  EXPECT_EQ(iterations_line(automatic.out), iterations_line(blocks.out)) << automatic.out;
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

// --amg-near-null-space rigid on a generated elasticity mesh: the six rigid-body modes from the
// generator's coordinates (the report says so), fewer iterations than the constants; from a
// --coordinates file, the same hierarchy and iterations as from the generator.
TEST(AmgOptionsCommand, RigidBodyModesFromTheGeneratorOrAFile) {
  const Result constant = run_clkr({"solve", "elasticity3d:8", "--precond", "amg"});
  const Result rigid = run_clkr({"solve", "elasticity3d:8", "--precond", "amg", "--amg-near-null-space", "rigid"});
  ASSERT_EQ(constant.code, 0) << describe(constant);
  ASSERT_EQ(rigid.code, 0) << describe(rigid);
  EXPECT_NE(rigid.out.find("blocks of 3, 6 near-null vectors"), std::string::npos) << rigid.out;
  EXPECT_EQ(constant.out.find("near-null vectors"), std::string::npos) << constant.out;
  const std::string rigid_iterations = iterations_line(rigid.out), constant_iterations = iterations_line(constant.out);
  ASSERT_FALSE(rigid_iterations.empty()) << rigid.out;
  ASSERT_FALSE(constant_iterations.empty()) << constant.out;
  EXPECT_LT(std::stoi(rigid_iterations.substr(rigid_iterations.find_last_of(' ') + 1)),
            std::stoi(constant_iterations.substr(constant_iterations.find_last_of(' ') + 1)))
      << rigid_iterations << " against " << constant_iterations;
  // The same coordinates as a Matrix Market array, a row per node.
  const std::vector<double> xyz = clkr::elasticity3d_coordinates(8);
  const fs::path file = scratch_dir() / "elasticity8_coordinates.mtx";
  {
    std::ofstream out(file);
    out << "%%MatrixMarket matrix array real general\n" << xyz.size() / 3 << " 3\n";
    out.precision(17);
    for (int c = 0; c < 3; ++c)  // array files list the columns one after the other
      for (std::size_t node = 0; node < xyz.size() / 3; ++node) out << xyz[3 * node + c] << "\n";
  }
  const Result from_file = run_clkr({"solve", "elasticity3d:8", "--precond", "amg", "--amg-near-null-space", "rigid",
                                     "--coordinates", file.string()});
  ASSERT_EQ(from_file.code, 0) << describe(from_file);
  EXPECT_EQ(iterations_line(from_file.out), rigid_iterations) << from_file.out;
}

// --amg-test-vectors builds the hierarchy on smoothed test vectors, and the report says so.
TEST(AmgOptionsCommand, TestVectorsAreReported) {
  const Result r =
      run_clkr({"solve", "poisson3d:12", "--precond", "amg", "--amg-test-vectors", "2", "--amg-test-steps", "10"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("2 smoothed test vectors"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("test vectors "), std::string::npos) << "the setup phase: " << r.out;
}

// --amg-test-steps also sets the steps of the vectors a strengthening would build (on by default), and
// --strengthen-check 0 and --amg-strengthen 0 are accepted (a Poisson solve never asks: 6 iterations).
TEST(AmgOptionsCommand, StrengtheningOptionsAreAccepted) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--amg-test-steps", "5"}, std::vector<std::string>{"--strengthen-check", "0"},
        std::vector<std::string>{"--amg-strengthen", "0"}, std::vector<std::string>{"--strengthen-check", "3"}}) {
    std::vector<std::string> args = {"solve", "poisson3d:12", "--precond", "amg", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_clkr(args);
    ASSERT_EQ(r.code, 0) << describe(r);
    EXPECT_NE(r.out.find("\"strengthened\":\"\""), std::string::npos) << "no strengthening expected: " << r.out;
  }
}

// --backend host computes on the host backend: the Gauss-Seidel smoother runs there and converges, the
// report and the JSON say where;
// the device refuses the smoother with exit 2 naming the option that would take it.
TEST(AmgOptionsCommand, GaussSeidelOnTheHostBackend) {
  const Result r = run_clkr({"solve", "poisson3d:16", "--backend", "host", "--precond", "amg", "--amg-smoother",
                             "gauss-seidel", "--amg-coarse-size", "40"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("l1 hybrid gauss-seidel ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("status      converged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in double on the host backend"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BLAS on host"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("format      csr (auto, the host backend computes in CSR)"), std::string::npos) << r.out;

  const Result j = run_clkr({"solve", "poisson3d:16", "--backend", "host", "--json"});
  ASSERT_EQ(j.code, 0) << describe(j);
  EXPECT_NE(j.out.find("\"backend\":\"host\""), std::string::npos) << j.out;
  const Result d = run_clkr({"solve", "poisson3d:16", "--json"});
  ASSERT_EQ(d.code, 0) << describe(d);
  EXPECT_NE(d.out.find("\"backend\":\"device\""), std::string::npos) << d.out;

  const Result refused = run_clkr({"solve", "poisson3d:8", "--precond", "amg", "--amg-smoother", "gauss-seidel"});
  EXPECT_EQ(refused.code, 2) << describe(refused);
  EXPECT_NE(refused.err.find("--backend host"), std::string::npos) << refused.err;
}

TEST(AmgOptionsCommand, BadValuesExitTwoWithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--precond", "amg", "--amg-update-eigen", "1"}, "--amg-update-eigen 1"},
      {{"--precond", "amg", "--amg-aggressive", "-1"}, "--amg-aggressive"},
      {{"--precond", "amg", "--amg-block-size", "many"}, "--amg-block-size"},
      {{"--precond", "amg", "--amg-block-smoothing", "2"}, "--amg-block-smoothing"},
      {{"--precond", "jacobi", "--amg-aggressive", "1"}, "applies to --precond amg only"},
      {{"--precond", "amg", "--precond-precision", "quarter"}, "half"},
      {{"--precond", "amg", "--amg-near-null-space", "rotations"}, "expected constant or rigid"},
      {{"--precond", "amg", "--amg-near-null-space", "rigid"}, "needs the mesh's node coordinates"},
      {{"--precond", "amg", "--coordinates", "xyz.mtx"}, "--amg-near-null-space rigid only"},
      {{"--precond", "jacobi", "--amg-near-null-space", "rigid"}, "applies to --precond amg only"},
      {{"--precond", "amg", "--amg-prolongator-relaxation", "2.5"}, "must lie in [0, 2]"},
      {{"--precond", "amg", "--amg-prolongator-relaxation", "-1"}, "--amg-prolongator-relaxation"},
      {{"--precond", "jacobi", "--amg-prolongator-relaxation", "0"}, "applies to --precond amg only"},
      {{"--precond", "amg", "--amg-test-vectors", "13"}, "--amg-test-vectors"},
      {{"--precond", "amg", "--amg-strengthen", "0", "--amg-test-steps", "5"},
       "applies with --amg-test-vectors K > 0 or --amg-strengthen K > 0 only"},
      {{"--precond", "jacobi", "--amg-test-vectors", "2"}, "applies to --precond amg only"},
      {{"--precond", "amg", "--amg-strengthen", "13"}, "--amg-strengthen"},
      {{"--precond", "jacobi", "--amg-strengthen", "2"}, "applies to --precond amg only"},
      {{"--precond", "amg", "--strengthen-check", "-1"}, "--strengthen-check"},
      {{"--backend", "gpu"}, "expected device or host"},
      {{"--backend", "host", "--format", "ell"}, "--backend host computes in CSR"},
      {{"--backend", "host", "--cg-path", "fused"}, "does not apply to --backend host"},
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

namespace {

// The first `count` cells of the CSV row of `method` (columns: matrix,n,nnz,implementation,method,device,
// status,iterations,...; the quoted note, which may hold commas, comes last), empty where there is none.
std::vector<std::string> csv_cells(const std::string& csv, const std::string& method, std::size_t count) {
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; cells.size() < count && std::getline(fields, cell, ',');) cells.push_back(cell);
    if (cells.size() == count && cells[4] == method) return cells;
  }
  return {};
}

// The iterations of `method`'s row, -1 where there is none or it did not converge.
int csv_iterations(const std::string& csv, const std::string& method) {
  const std::vector<std::string> cells = csv_cells(csv, method, 8);
  return !cells.empty() && cells[6] == "converged" ? std::stoi(cells[7]) : -1;
}

// `clkr bench solve --methods amg-points,amg-blocks` runs point and node-block smoothing side by side
// in one run: on bcsstk14 (6 unknowns a node) the blocks take far fewer iterations (118 against 29 on
// PoCL, 2026-12-03), on the host backend too.
TEST(AmgOptionsCommand, BenchSolveComparesNodeBlocksInOneRun) {
  const fs::path csv = scratch_dir() / "bench_solve_blocks.csv";
  const std::string matrix = std::string(CLKR_SOURCE_DIR) + "/matrices/bcsstk14.mtx";
  const Result r =
      run_clkr({"bench", "solve", matrix, "--methods", "amg-points,amg-blocks,host:amg-points,host:amg-blocks",
                "--peers", "none", "--reps", "1", "--csv", csv.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = read_text(csv);
  const int point = csv_iterations(text, "amg-points"), blocks = csv_iterations(text, "amg-blocks");
  const int host_point = csv_iterations(text, "host:amg-points");
  const int host_blocks = csv_iterations(text, "host:amg-blocks");
  ASSERT_GT(point, 0) << text;
  ASSERT_GT(blocks, 0) << text;
  ASSERT_GT(host_blocks, 0) << text;
  EXPECT_LT(blocks, point / 2) << text;
  EXPECT_LT(host_blocks, host_point / 2) << text;
  EXPECT_LE(std::abs(blocks - host_blocks), 2) << text;
}

// `clkr bench solve --methods amg,amg-plain` runs smoothed and plain aggregation side by side in one run:
// both converge, on the device and the host backend, and the plain hierarchy is sparser (the CSV's
// operator complexity, column 18).
TEST(AmgOptionsCommand, BenchSolveComparesPlainAggregationInOneRun) {
  const fs::path csv = scratch_dir() / "bench_solve_plain.csv";
  const std::string matrix = std::string(CLKR_SOURCE_DIR) + "/matrices/bcsstk14.mtx";
  const Result r = run_clkr({"bench", "solve", matrix, "--methods", "amg,amg-plain,host:amg-plain", "--peers", "none",
                             "--reps", "1", "--csv", csv.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = read_text(csv);
  for (const char* method : {"amg", "amg-plain", "host:amg-plain"}) EXPECT_GT(csv_iterations(text, method), 0) << text;
  // Column 18 (operator_complexity) of a method's row.
  auto complexity = [&](const std::string& method) {
    const std::vector<std::string> cells = csv_cells(text, method, 18);
    return cells.empty() ? 0.0 : std::stod(cells[17]);
  };
  EXPECT_GT(complexity("amg-plain"), 1.0) << text;
  EXPECT_LT(complexity("amg-plain"), complexity("amg")) << text;
  const Result bad = run_clkr({"bench", "solve", matrix, "--methods", "amg-unsmoothed", "--peers", "none"});
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("amg-plain"), std::string::npos) << bad.err;
}

}  // namespace
