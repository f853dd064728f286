// The automatic storage format (choose_format, the one place `--format auto` is decided) per device:
// DIA for entries on a few diagonals where the device gains from it; otherwise row-length statistics
// decide, except that plain CG on a device with a persistent CG kernel gets CSR for every matrix up to
// the kernel's row limit.
#include <gtest/gtest.h>

#include "app_common.hpp"
#include "clkr/blas/device_params.hpp"

namespace clkr::app {
namespace {

DeviceInfo device(DeviceType type, const std::string& vendor) {
  DeviceInfo info;
  info.type = type;
  info.vendor = vendor;
  return info;
}

// Rows of 20 entries but one of `longest`: irregular (CSR's row kernels on a GPU: SELL and HYB measured
// slower on the H200, whatever SELL's padding, `sell_bytes` of the 12 CSR bytes a nonzero), or past the
// load-balanced kernels' 8x the mean with 200 (CSR then, with those kernels).
MatrixStats irregular(std::int64_t rows, std::int64_t longest = 100, double sell_bytes = 13) {
  MatrixStats s;
  s.rows = s.cols = rows;
  s.nnz = 20 * (rows - 1) + longest;
  s.mean_row_length = static_cast<double>(s.nnz) / rows;
  s.max_row_length = longest;
  s.bytes_per_format[Format::Csr] = 12 * s.nnz;
  s.bytes_per_format[Format::Sell] = static_cast<std::int64_t>(sell_bytes * static_cast<double>(s.nnz));
  return s;
}

TEST(FormatChoice, PlainCgOnNvidiaTakesCsrUpToThePersistentRowLimit) {
  const DeviceInfo nvidia = device(DeviceType::Gpu, "NVIDIA Corporation");
  const std::size_t limit = device_params(nvidia, "off").cg.persistent_max_rows;
  ASSERT_GT(limit, 0u);
  const auto rows = static_cast<std::int64_t>(limit);
  EXPECT_EQ(choose_format(irregular(rows), nvidia, true).format, Format::Csr);
  EXPECT_NE(choose_format(irregular(rows), nvidia, true).reason.find("persistent"), std::string::npos);
  // Over the limit, or another solver: the row-length rule, CSR for irregular rows.
  const FormatChoice over = choose_format(irregular(rows + 1), nvidia, true);
  EXPECT_EQ(over.format, Format::Csr);
  EXPECT_EQ(over.reason.find("persistent"), std::string::npos) << over.reason;
  EXPECT_NE(over.reason.find("irregular rows (longest/mean row 5 > 1.5"), std::string::npos) << over.reason;
  EXPECT_EQ(choose_format(irregular(rows), nvidia, false).format, Format::Csr);
  EXPECT_EQ(choose_format(irregular(rows + 1, 100, 19), nvidia, true).format, Format::Csr);
  // A GPU without a measured persistent kernel keeps the row-length rule.
  const DeviceInfo amd = device(DeviceType::Gpu, "Advanced Micro Devices, Inc.");
  EXPECT_NE(choose_format(irregular(1000), amd, true).reason.find("irregular rows"), std::string::npos);
  MatrixStats regular = irregular(rows + 1);
  regular.max_row_length = 21;  // over the limit, rows about equally long: ELL
  EXPECT_EQ(choose_format(regular, nvidia, true).format, Format::Ell);
}

// Rows past 8x the mean: CSR with the load-balanced kernels on GPUs and CPUs, said so in the reason;
// below it the rules above.
TEST(FormatChoice, VeryIrregularRowsTakeTheLoadBalancedCsr) {
  for (const DeviceInfo& d :
       {device(DeviceType::Gpu, "NVIDIA Corporation"), device(DeviceType::Gpu, ""), device(DeviceType::Cpu, "")}) {
    const FormatChoice choice = choose_format(irregular(1000000000, 200), d);
    EXPECT_EQ(choice.format, Format::Csr) << choice.reason;
    EXPECT_NE(choice.reason.find("load-balanced"), std::string::npos) << choice.reason;
    EXPECT_EQ(choose_format(irregular(1000000000, 100), d).reason.find("load-balanced"), std::string::npos);
  }
  EXPECT_EQ(choose_format(irregular(1000000000, 100), device(DeviceType::Gpu, "")).format, Format::Csr);
  const FormatChoice persistent =
      choose_format(irregular(1000, 200), device(DeviceType::Gpu, "NVIDIA Corporation"), true);
  EXPECT_NE(persistent.reason.find("persistent"), std::string::npos) << persistent.reason;
  EXPECT_NE(persistent.reason.find("load-balanced"), std::string::npos) << persistent.reason;
  // Past cg.persistent_max_balanced_nnz the balanced CG runs on the fused path: the reason says no
  // persistent kernel.
  const FormatChoice past = choose_format(irregular(200000, 200), device(DeviceType::Gpu, "NVIDIA Corporation"), true);
  EXPECT_EQ(past.format, Format::Csr);
  EXPECT_EQ(past.reason.find("persistent"), std::string::npos) << past.reason;
  EXPECT_NE(past.reason.find("load-balanced"), std::string::npos) << past.reason;
  // Devices whose parameters leave the kernels off (accelerators: not measured) never mention them.
  EXPECT_EQ(choose_format(irregular(1000, 200), device(DeviceType::Accelerator, "")).reason.find("load-balanced"),
            std::string::npos);
}

// A stencil's statistics: 7 entries a row on 7 diagonals (poisson3d's, boundary rows ignored), or
// `diagonals` of them storing that many entries a row.
MatrixStats on_diagonals(std::int64_t rows, std::int64_t diagonals, double entries_per_row) {
  MatrixStats s;
  s.rows = s.cols = rows;
  s.nnz = static_cast<std::int64_t>(entries_per_row * static_cast<double>(rows));
  s.mean_row_length = entries_per_row;
  s.max_row_length = diagonals;
  s.diagonals = diagonals;
  return s;
}

// DIA where the device's spmv.dia_auto_max_fill lets it (a fill of diagonals x rows / nnz up to it),
// persistent CG included; past it, or with the diagonals unknown or too many for DIA, the other rules,
// the reason saying why not DIA where DIA could have been built.
TEST(FormatChoice, FewDiagonalsTakeDiaWhereTheDeviceGainsFromIt) {
  for (const DeviceInfo& d :
       {device(DeviceType::Gpu, "NVIDIA Corporation"), device(DeviceType::Gpu, ""), device(DeviceType::Cpu, "")}) {
    const double max_fill = device_params(d, "off").spmv.dia_auto_max_fill;
    const FormatChoice stencil = choose_format(on_diagonals(7000000, 7, 6.97), d);
    SCOPED_TRACE(stencil.reason);
    if (max_fill >= 7 / 6.97) {
      EXPECT_EQ(stencil.format, Format::Dia);
      EXPECT_NE(stencil.reason.find("DIA, 7 diagonals storing 1 x nnz"), std::string::npos);
    } else {
      EXPECT_NE(stencil.format, Format::Dia);
      EXPECT_NE(stencil.reason.find("not DIA"), std::string::npos);
    }
    // Diagonals storing 2.5x the entries: never DIA by default (more bytes than CSR's), said so.
    const FormatChoice padded = choose_format(on_diagonals(7000000, 10, 4), d);
    EXPECT_NE(padded.format, Format::Dia) << padded.reason;
    EXPECT_NE(padded.reason.find("(not DIA: "), std::string::npos) << padded.reason;
    // Unknown diagonals (more than the statistics count), or more than MatrixOptions allows: no DIA and
    // no note.
    for (const std::int64_t diagonals : {std::int64_t{-1}, std::int64_t{300}}) {
      const FormatChoice many = choose_format(on_diagonals(7000000, diagonals, 300), d);
      EXPECT_NE(many.format, Format::Dia) << many.reason;
      EXPECT_EQ(many.reason.find("DIA"), std::string::npos) << many.reason;
    }
  }
  // Plain CG within the persistent kernel's rows on NVIDIA: CSR, run as the persistent kernel, which
  // an H100 ran faster in CSR than in DIA (cg.persistent_dia 0); the same rows for another solver, or
  // past the kernel's rows: DIA.
  const DeviceInfo nvidia = device(DeviceType::Gpu, "NVIDIA Corporation");
  ASSERT_GE(device_params(nvidia, "off").spmv.dia_auto_max_fill, 7 / 6.97);
  ASSERT_EQ(device_params(nvidia, "off").cg.persistent_dia, 0u);
  const FormatChoice persistent = choose_format(on_diagonals(262144, 7, 6.9), nvidia, true);
  EXPECT_EQ(persistent.format, Format::Csr) << persistent.reason;
  EXPECT_NE(persistent.reason.find("persistent kernel)"), std::string::npos) << persistent.reason;
  EXPECT_NE(persistent.reason.find("not DIA: the persistent kernel runs CSR faster"), std::string::npos)
      << persistent.reason;
  EXPECT_EQ(choose_format(on_diagonals(262144, 7, 6.9), nvidia, false).format, Format::Dia);
  EXPECT_EQ(choose_format(on_diagonals(7000000, 7, 6.9), nvidia, true).format, Format::Dia);
}

}  // namespace
}  // namespace clkr::app
