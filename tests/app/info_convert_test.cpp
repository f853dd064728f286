// End-to-end tests of `clkr info` (statistics and bytes per format, text and JSON, against the
// library's compute_stats) and `clkr convert` (exact round trips in general and symmetric storage).
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "app_test_support.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"

using namespace app_test;

namespace {

// A 5 x 5 matrix with an empty row (row 3), a long row, an unsorted entry order and asymmetry.
const char* irregular_matrix =
    "%%MatrixMarket matrix coordinate real general\n"
    "5 5 9\n"
    "1 1 4.0\n"
    "1 5 -1.5\n"
    "1 2 0.25\n"
    "1 3 2.0\n"
    "1 4 1.0\n"
    "2 2 3.0\n"
    "4 4 -2.0\n"
    "5 1 7.0\n"
    "5 5 1.0\n";

TEST(InfoCommand, TextReportsTheStatistics) {
  const Result r = run_clkr({"info", "poisson2d:16"});
  ASSERT_EQ(r.code, 0) << describe(r);
  for (const char* line :
       {"size          256 x 256\n", "nnz           1216\n", "row length    min 3, max 5, mean 4.75\n",
        "empty rows    0\n", "bandwidth     16 ", "symmetric     yes"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << "missing '" << line << "' in\n" << r.out;
  }
  for (const char* format : {"  csr ", "  csr4 ", "  ell ", "  hyb "}) {
    EXPECT_NE(r.out.find(format), std::string::npos) << format;
  }
}

TEST(InfoCommand, JsonAgreesWithComputeStats) {
  const fs::path file = scratch_dir() / "irregular.mtx";
  write_text(file, irregular_matrix);
  const Result r = run_clkr({"info", file.string(), "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const Json j = parse_json(r.out);
  const clkr::MatrixStats s = clkr::compute_stats(clkr::read_matrix_market(file.string()));
  EXPECT_EQ(j["rows"].number, 5);
  EXPECT_EQ(j["nnz"].number, 9);
  EXPECT_EQ(j["min_row_length"].number, 0);
  EXPECT_EQ(j["max_row_length"].number, 5);
  EXPECT_DOUBLE_EQ(j["mean_row_length"].number, 9.0 / 5);
  EXPECT_EQ(j["empty_rows"].number, 1);
  EXPECT_EQ(j["bandwidth"].number, 4);
  EXPECT_FALSE(j["symmetric"].boolean);
  EXPECT_EQ(j["diagonal_positive"].number, 3);     // rows 1, 2, 5
  EXPECT_EQ(j["diagonal_nonpositive"].number, 1);  // row 4
  EXPECT_EQ(j["diagonal_missing"].number, 1);      // row 3 is empty
  EXPECT_EQ(j["hyb_ell_width"].number, s.hyb_ell_width);
  for (const auto& [format, bytes] : s.bytes_per_format) {
    EXPECT_EQ(j["bytes_per_format"][clkr::to_string(format)].number, bytes) << clkr::to_string(format);
  }
}

TEST(InfoCommand, AutomaticFormatFollowsRowLengths) {
  // Entries on 5 diagonals storing 1.11 x nnz: DIA on CPUs and GPUs (their spmv.dia_auto_max_fill: 1.2).
  const Result stencil = run_clkr({"info", "poisson2d:8", "--json"});
  ASSERT_EQ(stencil.code, 0) << describe(stencil);
  EXPECT_EQ(parse_json(stencil.out)["diagonals"].number, 5);
  EXPECT_EQ(parse_json(stencil.out)["auto_format_cpu"].text, "dia");
  EXPECT_EQ(parse_json(stencil.out)["auto_format_gpu"].text, "dia");
  EXPECT_NE(parse_json(stencil.out)["auto_format_gpu_reason"].text.find("DIA, 5 diagonals storing 1.11 x nnz"),
            std::string::npos)
      << stencil.out;
  // Short, equal rows whose entries lie on many diagonals (rows of 3 at random columns): CSR on CPUs
  // (one row per work-item), ELL on GPUs.
  std::string random_rows = "%%MatrixMarket matrix coordinate real general\n300 300 900\n";
  for (int i = 1; i <= 300; ++i)
    for (int k : {0, 1, 2})
      random_rows += std::to_string(i) + " " + std::to_string((i * 37 + k * 101) % 300 + 1) + " 1\n";
  const fs::path random_file = scratch_dir() / "random_rows.mtx";
  write_text(random_file, random_rows);
  const Result regular = run_clkr({"info", random_file.string(), "--json"});
  ASSERT_EQ(regular.code, 0) << describe(regular);
  EXPECT_EQ(parse_json(regular.out)["auto_format_cpu"].text, "csr");
  EXPECT_EQ(parse_json(regular.out)["auto_format_gpu"].text, "ell");
  // CG (none or Jacobi) on an NVIDIA GPU: CSR for the persistent kernel, said so.
  EXPECT_EQ(parse_json(regular.out)["auto_format_nvidia_cg"].text, "csr");
  EXPECT_NE(parse_json(regular.out)["auto_format_nvidia_cg_reason"].text.find("persistent kernel"), std::string::npos)
      << parse_json(regular.out)["auto_format_nvidia_cg_reason"].text;
  // Mean row length 20.5 (one row of 40, the others 20): CSR on GPUs (longest/mean row > 1.5, where SELL
  // and HYB measured slower than CSR on the H200), said so in the reason; on CPUs
  // CSR4 if the CPU launch parameters send CSR with such rows to its vector kernel, else CSR.
  std::string text = "%%MatrixMarket matrix coordinate real general\n40 40 ";
  std::string entries;
  int count = 0;
  for (int i = 1; i <= 40; ++i) {
    const int length = i == 1 ? 40 : 20;
    for (int k = 0; k < length; ++k) {
      entries += std::to_string(i) + " " + std::to_string((i - 1 + k) % 40 + 1) + " 1.5\n";
      ++count;
    }
  }
  const fs::path file = scratch_dir() / "long_rows.mtx";
  write_text(file, text + std::to_string(count) + "\n" + entries);
  const Result long_rows = run_clkr({"info", file.string(), "--json"});
  ASSERT_EQ(long_rows.code, 0) << describe(long_rows);
  clkr::DeviceInfo cpu;
  cpu.type = clkr::DeviceType::Cpu;
  const bool vector_kernel = 20.5 >= clkr::device_params(cpu).spmv.csr_vector_min_mean_row_length;
  EXPECT_EQ(parse_json(long_rows.out)["auto_format_cpu"].text, vector_kernel ? "csr4" : "csr");
  EXPECT_EQ(parse_json(long_rows.out)["auto_format_gpu"].text, "csr");
  EXPECT_NE(parse_json(long_rows.out)["auto_format_gpu_reason"].text.find("irregular rows"), std::string::npos)
      << long_rows.out;
}

TEST(InfoCommand, DetectsSymmetryStoredAsGeneral) {
  const fs::path general = scratch_dir() / "general.mtx";
  ASSERT_EQ(run_clkr({"convert", "poisson2d:5", general.string()}).code, 0);
  const Result r = run_clkr({"info", general.string()});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("symmetric     yes (numerically; stored as general)"), std::string::npos) << r.out;
}

TEST(InfoCommand, InputErrorsExitTwo) {
  const Result missing = run_clkr({"info"});
  EXPECT_EQ(missing.code, 2) << describe(missing);
  EXPECT_NE(missing.err.find("missing MATRIX"), std::string::npos) << missing.err;
  const Result no_file = run_clkr({"info", (scratch_dir() / "nothing.mtx").string()});
  EXPECT_EQ(no_file.code, 2) << describe(no_file);
  EXPECT_NE(no_file.err.find("nothing.mtx"), std::string::npos) << no_file.err;
}

TEST(ConvertCommand, RoundTripsGeneralAndSymmetric) {
  const fs::path general = scratch_dir() / "p3.mtx", symmetric = scratch_dir() / "p3_sym.mtx";
  const Result g = run_clkr({"convert", "poisson3d:5", general.string()});
  ASSERT_EQ(g.code, 0) << describe(g);
  const Result s = run_clkr({"convert", "poisson3d:5", symmetric.string(), "--symmetric"});
  ASSERT_EQ(s.code, 0) << describe(s);
  EXPECT_EQ(read_text(general).rfind("%%MatrixMarket matrix coordinate real general", 0), 0u);
  EXPECT_EQ(read_text(symmetric).rfind("%%MatrixMarket matrix coordinate real symmetric", 0), 0u);
  const clkr::HostCsrMatrix expected = clkr::poisson3d(5);
  clkr::test::expect_same_csr(clkr::read_matrix_market(general.string()), expected, "round trip");
  clkr::test::expect_same_csr(clkr::read_matrix_market(symmetric.string()), expected, "round trip");

  // Values that need all 17 digits survive a file -> file conversion.
  const fs::path source = scratch_dir() / "digits.mtx", copy = scratch_dir() / "digits_copy.mtx";
  write_text(source,
             "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 0.1\n1 2 3.0000000000000004\n"
             "2 2 -1.2345678901234567e-300\n");
  ASSERT_EQ(run_clkr({"convert", source.string(), copy.string()}).code, 0);
  clkr::test::expect_same_csr(clkr::read_matrix_market(copy.string()), clkr::read_matrix_market(source.string()),
                              "round trip");
}

TEST(ConvertCommand, RefusesSymmetricStorageOfANonsymmetricMatrix) {
  const fs::path in = scratch_dir() / "irregular_in.mtx", out = scratch_dir() / "irregular_out.mtx";
  write_text(in, irregular_matrix);
  const Result r = run_clkr({"convert", in.string(), out.string(), "--symmetric"});
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("symmetric"), std::string::npos) << r.err;
  const Result args = run_clkr({"convert", in.string()});
  EXPECT_EQ(args.code, 2) << describe(args);
  EXPECT_NE(args.err.find("expected IN and OUT"), std::string::npos) << args.err;
}

}  // namespace
