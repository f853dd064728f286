// Tests of the Laplacian generators (exact entries, nnz formulas, row sums, the large poisson3d:192)
// and of load_matrix's handling of generator specs and file paths.
#include "clkr/io/generators.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"

namespace fs = std::filesystem;
using clkr::HostCsrMatrix;

namespace {

std::vector<std::vector<double>> to_dense(const HostCsrMatrix& A) {
  std::vector<std::vector<double>> d(A.rows, std::vector<double>(A.cols, 0.0));
  for (int r = 0; r < A.rows; ++r)
    for (int k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) d[r][A.col_indices[k]] = A.values[k];
  return d;
}

TEST(Generators, Poisson2dOn3x3IsTheTextbookMatrix) {
  const HostCsrMatrix A = clkr::poisson2d(3);
  EXPECT_EQ(A.rows, 9);
  EXPECT_EQ(A.cols, 9);
  EXPECT_TRUE(A.symmetric);
  // Grid points numbered x fastest: point (x, y) is row 3y + x.
  const std::vector<std::vector<double>> expected = {
      {4, -1, 0, -1, 0, 0, 0, 0, 0},  {-1, 4, -1, 0, -1, 0, 0, 0, 0},  {0, -1, 4, 0, 0, -1, 0, 0, 0},
      {-1, 0, 0, 4, -1, 0, -1, 0, 0}, {0, -1, 0, -1, 4, -1, 0, -1, 0}, {0, 0, -1, 0, -1, 4, 0, 0, -1},
      {0, 0, 0, -1, 0, 0, 4, -1, 0},  {0, 0, 0, 0, -1, 0, -1, 4, -1},  {0, 0, 0, 0, 0, -1, 0, -1, 4},
  };
  EXPECT_EQ(to_dense(A), expected);
  EXPECT_EQ(A.nnz(), 33);
  EXPECT_NO_THROW(A.validate());
}

TEST(Generators, Poisson2dNnzFormula) {
  for (int n = 1; n <= 12; ++n) {
    SCOPED_TRACE(n);
    const HostCsrMatrix A = clkr::poisson2d(n);
    EXPECT_EQ(A.rows, n * n);
    EXPECT_EQ(A.nnz(), 5 * n * n - 4 * n);
    EXPECT_NO_THROW(A.validate());
  }
}

// Row sums of the 7-point Laplacian: 6 minus the neighbours present, i.e. the number of grid faces
// the point lies on (0 inside, up to 3 at a corner; 6 for the single point of n = 1).
TEST(Generators, Poisson3dRowSumsAndNnzFormula) {
  for (int n = 1; n <= 7; ++n) {
    SCOPED_TRACE(n);
    const HostCsrMatrix A = clkr::poisson3d(n);
    ASSERT_EQ(A.rows, n * n * n);
    EXPECT_EQ(A.nnz(), 7 * n * n * n - 6 * n * n);
    EXPECT_TRUE(A.symmetric);
    EXPECT_NO_THROW(A.validate());
    for (int r = 0; r < A.rows; ++r) {
      const int coord[3] = {r % n, r / n % n, r / (n * n)};
      int faces = 0;
      for (const int c : coord) faces += (c == 0) + (c == n - 1);
      double sum = 0;
      for (int k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) sum += A.values[k];
      EXPECT_EQ(sum, faces) << "row " << r;
    }
  }
}

TEST(Generators, Poisson3dIsSymmetricWithTheRightStencil) {
  const int n = 4;
  const std::vector<std::vector<double>> d = to_dense(clkr::poisson3d(n));
  for (int i = 0; i < n * n * n; ++i) {
    EXPECT_EQ(d[i][i], 6.0);
    for (int j = 0; j < n * n * n; ++j) {
      EXPECT_EQ(d[i][j], d[j][i]);
      const int dist = std::abs(i % n - j % n) + std::abs(i / n % n - j / n % n) + std::abs(i / (n * n) - j / (n * n));
      if (i != j) {
        EXPECT_EQ(d[i][j], dist == 1 ? -1.0 : 0.0) << i << ", " << j;
      }
    }
  }
}

TEST(Generators, Poisson3d192IsFastAndExact) {
  const auto start = std::chrono::steady_clock::now();
  const HostCsrMatrix A = clkr::poisson3d(192);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ perf     ] poisson3d(192): " << A.nnz() << " nonzeros in " << seconds << " s\n";
  EXPECT_EQ(A.rows, 7077888);
  EXPECT_EQ(A.nnz(), 49324032);
  EXPECT_EQ(A.row_offsets.back(), 49324032);
  EXPECT_EQ(A.col_indices.capacity(), A.col_indices.size());  // allocated once, at the exact size
  EXPECT_LT(seconds, 10.0);
}

TEST(Generators, RejectBadSizes) {
  EXPECT_THROW(clkr::poisson2d(0), clkr::Error);
  EXPECT_THROW(clkr::poisson3d(-5), clkr::Error);
  {
    // 343e6 rows and 2.4e9 nonzeros (past int32: 64-bit row offsets), 31.5 GB: counted in 64 bits and
    // refused by the memory check, not by an int32 limit.
    const clkr::test::ScopedEnv env("CLKR_HOST_MEMORY_LIMIT", "1G");
    try {
      clkr::poisson3d(700);
      ADD_FAILURE() << "no error";
    } catch (const clkr::Error& e) {
      EXPECT_NE(std::string(e.what()).find("poisson3d: n = 700 (343000000 rows, 2398060000 nonzeros in CSR) needs "
                                           "31.5 GB (31520720008 bytes)"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    clkr::poisson2d(50000);
    ADD_FAILURE() << "no error";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("gives more rows than the int32 limit"), std::string::npos) << e.what();
  }
}

TEST(LoadMatrix, GeneratorSpecs) {
  EXPECT_TRUE(clkr::is_generator_spec("poisson2d:4"));
  EXPECT_TRUE(clkr::is_generator_spec("poisson3d:abc"));  // a generator spec, if a bad one
  EXPECT_FALSE(clkr::is_generator_spec("poisson2d"));
  EXPECT_FALSE(clkr::is_generator_spec("matrices/nos4.mtx"));
  EXPECT_FALSE(clkr::is_generator_spec("poisson5d:4"));

  const HostCsrMatrix A = clkr::load_matrix("poisson2d:4");
  const HostCsrMatrix B = clkr::poisson2d(4);
  EXPECT_EQ(A.row_offsets, B.row_offsets);
  EXPECT_EQ(A.col_indices, B.col_indices);
  EXPECT_EQ(A.values, B.values);
  EXPECT_EQ(clkr::load_matrix("poisson3d:3").nnz(), 7 * 27 - 6 * 9);
}

TEST(LoadMatrix, BadGeneratorSpecsSayWhatIsExpected) {
  for (const std::string spec : {"poisson2d:", "poisson2d:abc", "poisson2d:0", "poisson3d:-2", "poisson3d:5x",
                                 "poisson2d: 5", "poisson3d:99999999999"}) {
    SCOPED_TRACE(spec);
    try {
      clkr::load_matrix(spec);
      ADD_FAILURE() << "accepted";
    } catch (const clkr::Error& e) {
      EXPECT_NE(std::string(e.what()).find("bad matrix spec '" + spec + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("N a positive integer"), std::string::npos) << e.what();
    }
  }
  try {
    clkr::load_matrix("poisson4d:8");
    ADD_FAILURE() << "accepted";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("neither an existing file nor a generator spec"), std::string::npos)
        << e.what();
  }
}

#ifdef CLKR_SOURCE_DIR
// matrices/README.md says the bundled CUDA-samples Laplacian is poisson2d:100, entry for entry.
TEST(LoadMatrix, BundledLaplacianEqualsPoisson2d100) {
  const HostCsrMatrix A = clkr::load_matrix(CLKR_SOURCE_DIR "/matrices/lap2D_5pt_n100.mtx");
  const HostCsrMatrix B = clkr::load_matrix("poisson2d:100");
  EXPECT_EQ(A.rows, B.rows);
  EXPECT_EQ(A.row_offsets, B.row_offsets);
  EXPECT_EQ(A.col_indices, B.col_indices);
  EXPECT_EQ(A.values, B.values);
  EXPECT_TRUE(A.symmetric);
}
#endif

TEST(LoadMatrix, FilePaths) {
  const fs::path dir = fs::temp_directory_path() /
                       ("clkr_gen_test_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  fs::create_directories(dir);
  const fs::path path = dir / "p.mtx";
  clkr::write_matrix_market(path.string(), clkr::poisson2d(3), true);
  const HostCsrMatrix A = clkr::load_matrix(path.string());
  EXPECT_EQ(A.rows, 9);
  EXPECT_EQ(A.nnz(), 33);
  EXPECT_TRUE(A.symmetric);
  const std::string missing = (dir / "missing.mtx").string();
  try {
    clkr::load_matrix(missing);
    ADD_FAILURE() << "accepted";
  } catch (const clkr::Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
