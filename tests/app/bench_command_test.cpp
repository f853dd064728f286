// End-to-end smoke tests of `clkr bench`: the CSV columns docs/benchmarks.md documents, a fixed
// iteration count, ratios against a reference, and matrices that cannot run reported with the reason.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app_test_support.hpp"

using namespace app_test;

namespace {

// CSV text -> rows of fields (no quoted commas in the columns these tests read).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    bool quoted = false;
    std::string field;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(BenchCommand, CgWritesTheDocumentedCsv) {
  const fs::path nonsymmetric = scratch_dir() / "nonsymmetric.mtx";
  write_text(nonsymmetric, "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2.0\n1 2 1.0\n2 2 2.0\n");
  const fs::path csv = scratch_dir() / "cg.csv", json = scratch_dir() / "cg.json";
  const Result r =
      run_clkr({"bench", "cg", "poisson2d:16", nonsymmetric.string(), "--iterations", "12", "--reps", "2", "--formats",
                "csr", "--precisions", "single", "--peers", "eigen", "--csv", csv.string(), "--json", json.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto rows = parse_csv(read_text(csv));
  ASSERT_GE(rows.size(), 4u) << read_text(csv);
  const std::vector<std::string> documented = {"matrix",
                                               "n",
                                               "nnz",
                                               "implementation",
                                               "format",
                                               "precision",
                                               "status",
                                               "iterations",
                                               "reps",
                                               "wall_s_per_iter_median",
                                               "wall_s_per_iter_min",
                                               "wall_s_per_iter_max",
                                               "profile_s_per_iter_median",
                                               "bytes_per_iter",
                                               "gbytes_per_s",
                                               "copy_gbytes_per_s",
                                               "fraction_of_copy",
                                               "top_kernel",
                                               "top_kernel_share",
                                               "true_relative_residual",
                                               "ratio_vs_eigen",
                                               "ratio_vs_viennacl_csr",
                                               "ratio_vs_viennacl_hyb",
                                               "ratio_vs_host",
                                               "device",
                                               "note"};
  EXPECT_EQ(rows[0], documented);
  const auto& h = rows[0];
  // Eigen's row says whether the peer ran (a build without Eigen has it "unavailable"): the clkr rows
  // have a ratio to it exactly when it did.
  bool eigen_ran = false;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][column(h, "implementation")] == "eigen" && rows[i][column(h, "status")] == "ok") eigen_ran = true;
  bool saw_clkr = false, saw_eigen = false, saw_skipped = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    ASSERT_EQ(row.size(), h.size()) << i;
    const std::string impl = row[column(h, "implementation")];
    if (impl == "clkr") {
      saw_clkr = true;
      EXPECT_EQ(row[column(h, "status")], "ok") << row[column(h, "note")];
      EXPECT_EQ(row[column(h, "iterations")], "12");
      EXPECT_EQ(row[column(h, "reps")], "2");
      const double median = std::stod(row[column(h, "wall_s_per_iter_median")]);
      EXPECT_GE(median, std::stod(row[column(h, "wall_s_per_iter_min")]));
      EXPECT_LE(median, std::stod(row[column(h, "wall_s_per_iter_max")]));
      EXPECT_GT(std::stod(row[column(h, "bytes_per_iter")]), 0);
      EXPECT_GT(std::stod(row[column(h, "copy_gbytes_per_s")]), 0);
      if (eigen_ran)
        EXPECT_GT(std::stod(row[column(h, "ratio_vs_eigen")]), 0);
      else
        EXPECT_TRUE(row[column(h, "ratio_vs_eigen")].empty()) << row[column(h, "ratio_vs_eigen")];
      EXPECT_FALSE(row[column(h, "top_kernel")].empty());
    } else if (impl == "eigen") {
      saw_eigen = true;
      const std::string status = row[column(h, "status")];
      EXPECT_TRUE(status == "ok" || status == "unavailable") << status;
      if (status == "ok") {
        EXPECT_EQ(row[column(h, "iterations")], "12");
      }
    } else if (row[column(h, "status")] == "skipped") {
      saw_skipped = true;
      EXPECT_EQ(row[column(h, "matrix")], "nonsymmetric");
      EXPECT_NE(row[column(h, "note")].find("not symmetric"), std::string::npos);
    }
  }
  EXPECT_TRUE(saw_clkr && saw_eigen && saw_skipped) << read_text(csv);
  const Json j = parse_json(read_text(json));
  EXPECT_GT(j["copy_bandwidth"]["gbytes_per_second"].number, 0);
  EXPECT_EQ(j["rows"].items.size(), rows.size() - 1);
}

// The ViennaCL peer runs the very system clkr runs: its CG, a fixed number of iterations on a small
// SPD matrix, reaches about the same true residual. (Its CSR takes 32-bit row offsets: handed clkr's
// 64-bit host offsets as they are, it multiplied with rows of garbage lengths.)
TEST(BenchCommand, ViennaclPeerSolvesTheSameSystem) {
  const fs::path csv = scratch_dir() / "viennacl.csv";
  const Result r = run_clkr({"bench", "cg", "poisson2d:12", "--iterations", "40", "--reps", "1", "--formats", "csr,hyb",
                             "--precisions", "double", "--peers", "viennacl", "--csv", csv.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto rows = parse_csv(read_text(csv));
  const auto& h = rows.at(0);
  double clkr_residual = -1;
  std::vector<std::pair<std::string, double>> peer;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (row[column(h, "status")] != "ok") continue;
    const double residual = std::stod(row[column(h, "true_relative_residual")]);
    if (row[column(h, "implementation")] == "clkr" && row[column(h, "format")] == "csr") clkr_residual = residual;
    if (row[column(h, "implementation")] == "viennacl") peer.emplace_back(row[column(h, "format")], residual);
  }
  if (peer.empty()) GTEST_SKIP() << "no ViennaCL in this build or on this device: " << read_text(csv);
  // 40 CG iterations on the 144-row Poisson matrix (condition ~ 60) reach ~1e-14 in exact arithmetic's
  // terms; both libraries stop at rounding level.
  ASSERT_GT(clkr_residual, 0) << read_text(csv);
  EXPECT_LT(clkr_residual, 1e-10) << read_text(csv);
  for (const auto& [format, residual] : peer)
    EXPECT_LT(residual, 1e-10) << "ViennaCL " << format << ": " << read_text(csv);
}

TEST(BenchCommand, Blas1AndSpmvSmoke) {
  const fs::path blas1 = scratch_dir() / "blas1.csv", spmv = scratch_dir() / "spmv.csv";
  const Result b = run_clkr({"bench", "blas1", "--ops", "axpy,dot", "--sizes", "1000,4099", "--precisions", "single",
                             "--reps", "2", "--csv", blas1.string()});
  ASSERT_EQ(b.code, 0) << describe(b);
  const auto blas1_rows = parse_csv(read_text(blas1));
  ASSERT_EQ(blas1_rows.size(), 1u + 2 * 2);
  for (std::size_t i = 1; i < blas1_rows.size(); ++i) {
    EXPECT_EQ(blas1_rows[i][column(blas1_rows[0], "status")], "ok");
    EXPECT_GT(std::stod(blas1_rows[i][column(blas1_rows[0], "gbytes_per_s")]), 0);
  }
  const Result s = run_clkr({"bench", "spmv", "poisson2d:16", "--formats", "csr,ell", "--precisions", "single",
                             "--reps", "2", "--csv", spmv.string()});
  ASSERT_EQ(s.code, 0) << describe(s);
  const auto spmv_rows = parse_csv(read_text(spmv));
  ASSERT_EQ(spmv_rows.size(), 3u);
  EXPECT_EQ(spmv_rows[1][column(spmv_rows[0], "status")], "ok");
}

// DIA and the automatic format in bench spmv: DIA timed on a stencil and refused, with the reason, on a
// matrix with thousands of diagonals; auto's rows named by the format it picked for each matrix.
TEST(BenchCommand, SpmvTimesDiaAndNamesTheAutomaticPick) {
  const fs::path csv = scratch_dir() / "spmv_dia.csv";
  const Result r = run_clkr({"bench", "spmv", "poisson2d:16", "powerlaw:2000", "--formats", "dia,auto", "--precisions",
                             "single", "--reps", "2", "--csv", csv.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto rows = parse_csv(read_text(csv));
  ASSERT_EQ(rows.size(), 5u) << read_text(csv);
  const auto& h = rows[0];
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::string matrix = rows[i][column(h, "matrix")], format = rows[i][column(h, "format")];
    const std::string status = rows[i][column(h, "status")], note = rows[i][column(h, "note")];
    if (matrix == "powerlaw:2000" && format == "dia") {
      EXPECT_EQ(status, "error");
      EXPECT_NE(note.find("DIA refused"), std::string::npos) << note;
    } else {
      EXPECT_EQ(status, "ok") << matrix << " " << format << ": " << note;
    }
    if (format != "dia") EXPECT_EQ(format.rfind("auto:", 0), 0u) << format;
  }
}

// Three ways of solving K right-hand sides, each converged with the same iterations per column (the
// batched CG's columns are the separate solves' up to rounding: within one iteration each).
TEST(BenchCommand, RhsComparesBatchedLoopAndSeparate) {
  const fs::path csv = scratch_dir() / "rhs.csv";
  const Result r =
      run_clkr({"bench", "rhs", "poisson2d:10", "--k", "3", "--precisions", "double", "--csv", csv.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto rows = parse_csv(read_text(csv));
  ASSERT_EQ(rows.size(), 4u) << read_text(csv);
  const auto& h = rows[0];
  std::vector<std::string> ways;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ways.push_back(rows[i][column(h, "way")]);
    EXPECT_EQ(rows[i][column(h, "status")], "ok") << read_text(csv);
    EXPECT_EQ(rows[i][column(h, "k")], "3");
    EXPECT_GT(std::stod(rows[i][column(h, "seconds_per_column")]), 0);
    EXPECT_NEAR(std::stod(rows[i][column(h, "iterations_total")]), std::stod(rows[1][column(h, "iterations_total")]),
                3);
  }
  EXPECT_EQ(ways, (std::vector<std::string>{"loop", "batched", "separate"}));
  const Result bad = run_clkr({"bench", "rhs", "--solver", "gmres"});
  EXPECT_EQ(bad.code, 2) << describe(bad);
}

// `clkr bench solve` with -mixed methods (reliable-update PCG in single inside the double solve): each
// row converges and its note counts the reliable updates, and --inner-tol, the drop between updates,
// sets how many there are: 1e-4 takes fewer than the default 0.1 on the same system.
TEST(BenchCommand, SolveCountsTheReliableUpdatesOfMixedMethods) {
  auto updates = [](const std::string& csv_text, const std::string& method) {
    for (const std::vector<std::string>& row : parse_csv(csv_text)) {
      if (row.size() < 8 || row[4] != method) continue;
      EXPECT_EQ(row[6], "converged") << csv_text;
      std::smatch m;  // the note is "format dia; 7 reliable updates (delta 0.1); ..."
      if (!std::regex_search(row.back(), m, std::regex("(\\d+) reliable updates \\(delta "))) break;
      return std::stoi(m[1].str());
    }
    ADD_FAILURE() << "no reliable-update count for " << method << " in\n" << csv_text;
    return -1;
  };
  const std::string dir = scratch_dir().string();
  int cg_default = 0, amg_default = 0, cg_fewer = 0;
  for (const char* delta : {"", "1e-4"}) {
    const std::string csv = dir + "/bench_solve_mixed" + delta + ".csv";
    std::vector<std::string> args = {
        "bench", "solve", "poisson3d:12", "--methods", "cg-mixed,amg-mixed", "--peers", "none", "--reps", "1",
        "--tol", "1e-10", "--csv",        csv};
    if (*delta) args.insert(args.end(), {"--inner-tol", delta});
    const Result r = run_clkr(args);
    ASSERT_EQ(r.code, 0) << describe(r);
    const std::string text = read_text(csv);
    if (*delta) {
      cg_fewer = updates(text, "cg-mixed");
      EXPECT_NE(text.find("(delta 0.0001)"), std::string::npos) << text;
    } else {
      cg_default = updates(text, "cg-mixed");
      amg_default = updates(text, "amg-mixed");
    }
  }
  EXPECT_GE(cg_default, 3);  // 1e-10 in drops of 10: several (7 on PoCL)
  EXPECT_GE(amg_default, 3);
  EXPECT_GE(cg_fewer, 1);
  EXPECT_LT(cg_fewer, cg_default);
  const Result bad = run_clkr({"bench", "solve", "poisson3d:8", "--methods", "cg-mixed", "--inner-tol", "1"});
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("--inner-tol 1: must lie in (0, 1)"), std::string::npos) << bad.err;
}

TEST(BenchCommand, UsageErrors) {
  const Result suite = run_clkr({"bench", "fft"});
  EXPECT_EQ(suite.code, 2) << describe(suite);
  EXPECT_NE(suite.err.find("unknown benchmark suite 'fft'"), std::string::npos) << suite.err;
  const Result format = run_clkr({"bench", "cg", "--formats", "csr,bsr"});
  EXPECT_EQ(format.code, 2) << describe(format);
  EXPECT_NE(format.err.find("unknown format 'bsr'"), std::string::npos) << format.err;
  EXPECT_NE(format.err.find("dia, auto"), std::string::npos) << format.err;  // the names it knows
  const Result iterations = run_clkr({"bench", "cg", "--iterations", "0"});
  EXPECT_EQ(iterations.code, 2) << describe(iterations);
}

}  // namespace
