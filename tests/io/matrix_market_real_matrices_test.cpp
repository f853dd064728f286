// The real matrices: those of ../shared/matrices against the table in its SOURCES.md (sizes, symmetry,
// a valid CSR), and the four bundled in matrices/ against matrices/README.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../test_matrices.hpp"
#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/io/matrix_market.hpp"

namespace {

namespace fs = std::filesystem;
using clkr::HostCsrMatrix;

// The collection: CLKR_SHARED_MATRICES, else ../shared/matrices beside the source tree.
fs::path shared_matrices_dir() {
  if (const char* env = std::getenv("CLKR_SHARED_MATRICES")) return env;
#ifdef CLKR_SOURCE_DIR
  return fs::path(CLKR_SOURCE_DIR) / ".." / "shared" / "matrices";
#else
  return {};
#endif
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream s(line);
  std::string cell;
  std::getline(s, cell, '|');  // before the leading '|'
  while (std::getline(s, cell, '|')) {
    const auto first = cell.find_first_not_of(' ');
    const auto last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

struct SourceRow {
  std::string file, symmetry;
  std::int64_t rows, cols, nnz;
};

// The matrix table of SOURCES.md: the row starting "| class | file |" names the columns. Only the
// columns up to `symmetry` are used: later cells (licence notes) may hold '|' themselves.
std::vector<SourceRow> read_sources_table(const fs::path& sources) {
  std::ifstream in(sources);
  std::string line;
  std::map<std::string, std::size_t> column;
  std::vector<SourceRow> rows;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) {
      if (!column.empty() && !rows.empty()) break;  // the end of the table
      continue;
    }
    const std::vector<std::string> cells = split_row(line);
    if (column.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) column[cells[i]] = i;
      if (!column.count("file")) column.clear();
      continue;
    }
    if (line.rfind("|---", 0) == 0) continue;
    auto cell = [&](const char* name) { return cells.at(column.at(name)); };
    rows.push_back(
        {cell("file"), cell("symmetry"), std::stoll(cell("rows")), std::stoll(cell("cols")), std::stoll(cell("nnz"))});
  }
  return rows;
}

TEST(MatrixMarketRealMatrices, SizesMatchSourcesTable) {
  const fs::path dir = shared_matrices_dir();
  if (dir.empty() || !fs::exists(dir / "SOURCES.md"))
    GTEST_SKIP() << "no shared matrices at '" << dir.string()
                 << "' (set CLKR_SHARED_MATRICES or build with CLKR_SOURCE_DIR)";
  const std::vector<SourceRow> table = read_sources_table(dir / "SOURCES.md");
  ASSERT_GE(table.size(), 10u) << "the SOURCES.md table was not found or has changed shape";
  for (const SourceRow& row : table) {
    SCOPED_TRACE(row.file);
    const std::string path = clkr::test::existing_matrix_file(dir.string() + "/", row.file);
    ASSERT_FALSE(path.empty()) << "SOURCES.md lists " << row.file << ", which is not in " << dir.string();
    const HostCsrMatrix A = clkr::read_matrix_market(path);
    EXPECT_EQ(A.rows, row.rows);
    EXPECT_EQ(A.cols, row.cols);
    EXPECT_EQ(A.nnz(), row.nnz);
    EXPECT_EQ(A.symmetric, row.symmetry == "symmetric");
    EXPECT_NO_THROW(A.validate());
    double checksum = 0;
    for (const double x : A.values) checksum += std::abs(x);
    EXPECT_TRUE(std::isfinite(checksum));
    EXPECT_GT(checksum, 0.0);
  }
}

#ifdef CLKR_SOURCE_DIR
// The four matrices bundled in matrices/, with the sizes matrices/README.md states.
TEST(MatrixMarketRealMatrices, BundledMatricesMatchTheirReadme) {
  struct Bundled {
    const char* file;
    std::int32_t rows;
    std::int64_t nnz;
    bool symmetric;
  };
  for (const Bundled& b :
       {Bundled{"bcsstk14.mtx", 1806, 63454, true}, Bundled{"nos3.mtx", 960, 15844, true},
        Bundled{"sherman5.mtx", 3312, 20793, false}, Bundled{"lap2D_5pt_n100.mtx", 10000, 49600, true}}) {
    SCOPED_TRACE(b.file);
    const HostCsrMatrix A = clkr::read_matrix_market(std::string(CLKR_SOURCE_DIR "/matrices/") + b.file);
    EXPECT_EQ(A.rows, b.rows);
    EXPECT_EQ(A.cols, b.rows);
    EXPECT_EQ(A.nnz(), b.nnz);
    EXPECT_EQ(A.symmetric, b.symmetric);
    EXPECT_NO_THROW(A.validate());
  }
}
#endif

}  // namespace
