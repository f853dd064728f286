// Launch parameters: the default table by device type and vendor, the tuned key=value file (round
// trip, override, malformed files named by line), validation, and the variant names.
#include "clkr/blas/device_params.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

namespace fs = std::filesystem;

DeviceInfo device(DeviceType type, const std::string& vendor) {
  DeviceInfo info;
  info.type = type;
  info.vendor = vendor;
  info.name = "Test Device/1 (x)";
  info.driver_version = "9.9 beta";
  return info;
}

// A fresh directory under the build tree's temp area, removed at the end of the test.
class ParamsTempDir {
 public:
  ParamsTempDir() : path_(fs::temp_directory_path() / ("clkr_params_test_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ParamsTempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(DeviceParams, DefaultsByTypeAndVendor) {
  const DeviceParams cpu = default_device_params(device(DeviceType::Cpu, "GenuineIntel"));
  EXPECT_EQ(cpu.source, "default:cpu");
  EXPECT_EQ(cpu.blas1.variant, Blas1Variant::Chunked);
  EXPECT_EQ(cpu.blas1.work_items_per_compute_unit, 1u);
  EXPECT_EQ(cpu.blas1.vector_width, 8u);

  const DeviceParams nvidia = default_device_params(device(DeviceType::Gpu, "NVIDIA Corporation"));
  EXPECT_EQ(nvidia.source, "default:gpu:nvidia");
  EXPECT_EQ(nvidia.blas1.variant, Blas1Variant::GridStride);
  EXPECT_EQ(nvidia.blas1.work_group_size, 256u);
  EXPECT_EQ(nvidia.blas1.groups_per_compute_unit, 8u);

  EXPECT_EQ(nvidia.reduction.groups_per_compute_unit, 8u);
  // The persistent CG kernel is on only where its work-groups were measured to be co-resident.
  EXPECT_GT(nvidia.cg.persistent_max_rows, 0u);
  EXPECT_EQ(default_device_params(device(DeviceType::Cpu, "x")).cg.persistent_max_rows, 0u);
  EXPECT_EQ(default_device_params(device(DeviceType::Gpu, "Advanced Micro Devices, Inc.")).cg.persistent_max_rows, 0u);
  EXPECT_EQ(default_device_params(device(DeviceType::Gpu, "Advanced Micro Devices, Inc.")).source, "default:gpu");
  // CG runs small systems on the host of CPU devices only (a GPU's launches are cheap next to its rate).
  const DeviceParams cpu_cg = default_device_params(device(DeviceType::Cpu, "x"));
  EXPECT_GT(cpu_cg.cg.host_max_nnz, cpu_cg.cg.host_max_nnz_quasi_double);
  EXPECT_GT(cpu_cg.cg.host_max_nnz_quasi_double, 0u);
  EXPECT_EQ(nvidia.cg.host_max_nnz, 0u);
  // NVIDIA: more CSR-vector lanes only past 64 entries a row (the rows the tuner measured keep 4).
  EXPECT_EQ(csr_vector_lanes(nvidia.spmv, 64.0, 64), 4u);
  EXPECT_EQ(csr_vector_lanes(nvidia.spmv, 117.0, 64), 8u);
  EXPECT_TRUE(std::isinf(cpu.spmv.vector_entries_per_lane));
  EXPECT_EQ(nvidia.cg.host_max_nnz_quasi_double, 0u);
  EXPECT_EQ(default_device_params(device(DeviceType::Accelerator, "x")).blas1.variant, Blas1Variant::GridStride);
  EXPECT_NO_THROW(validate_device_params(default_device_params(device(DeviceType::Other, ""))));
  // The Galerkin product shares rows between work-items on GPUs only.
  EXPECT_EQ(cpu.galerkin.max_lanes, 1u);
  EXPECT_GT(nvidia.galerkin.max_lanes, 1u);
}

TEST(DeviceParams, FileRoundTripsEveryKey) {
  ParamsTempDir dir;
  DeviceParams p = default_device_params(device(DeviceType::Cpu, "x"));
  p.blas1 = {Blas1Variant::GridStride, 96, 3, 5, 16};
  p.reduction = {128, 6};
  p.spmv.work_group_size = 64;
  p.spmv.csr_vector_min_mean_row_length = 7.5;
  p.spmv.vector_lanes = 16;
  p.spmv.vector_entries_per_lane = 12.5;
  p.spmv.rows_per_work_item = 40;
  p.spmv.row_sum_chains = 1;
  p.spmv.row_sum_chains_single = 1;
  p.spmv.stream_loads = 1;
  p.cg = {12345, 128, 2, 17, 8, 999};
  p.galerkin = {64, 16};
  const std::string path = dir.str() + "/p.txt";
  write(path, "# written by a test\n\n" + format_device_params(p));
  const DeviceParams back = read_device_params(path, DeviceParams{});
  EXPECT_EQ(format_device_params(back), format_device_params(p));
  EXPECT_EQ(back.source, "tuned:" + path);
}

// The CSR-vector kernel's lanes: vector_lanes, doubled while a lane would get more than
// vector_entries_per_lane entries of a mean row, up to 32 and the kernel's work-group.
TEST(DeviceParams, CsrVectorLanesGrowWithTheRowLength) {
  SpmvParams p;
  p.vector_lanes = 4;
  EXPECT_EQ(csr_vector_lanes(p, 1000.0, 256), 4u);  // infinity: never more
  p.vector_entries_per_lane = 16;
  EXPECT_EQ(csr_vector_lanes(p, 12.0, 256), 4u);
  EXPECT_EQ(csr_vector_lanes(p, 64.0, 256), 4u);  // 16 a lane: not more than 16
  EXPECT_EQ(csr_vector_lanes(p, 64.5, 256), 8u);
  EXPECT_EQ(csr_vector_lanes(p, 117.0, 256), 8u);  // 14.6 a lane at 8
  EXPECT_EQ(csr_vector_lanes(p, 300.0, 256), 32u);
  EXPECT_EQ(csr_vector_lanes(p, 1e6, 256), 32u);  // a warp at most
  EXPECT_EQ(csr_vector_lanes(p, 1e6, 16), 16u);   // and the work-group
  EXPECT_EQ(csr_vector_lanes(p, 1e6, 4), 4u);
  p.vector_entries_per_lane = 0.5;
  EXPECT_EQ(csr_vector_lanes(p, 3.0, 256), 8u);
}

TEST(DeviceParams, TunedFileInTheCacheDirectoryOverridesDefaults) {
  ParamsTempDir dir;
  const DeviceInfo info = device(DeviceType::Cpu, "GenuineIntel");
  const std::string path = device_params_path(info, dir.str());
  EXPECT_EQ(path, dir.str() + "/params/Test_Device_1__x__9.9_beta.txt");
  EXPECT_EQ(device_params(info, dir.str()).source, "default:cpu");  // no file yet

  write(path, "blas1.vector_width = 4   # AVX2 only\n  reduction.work_group_size=32\n");
  const DeviceParams tuned = device_params(info, dir.str());
  EXPECT_EQ(tuned.source, "tuned:" + path);
  EXPECT_EQ(tuned.blas1.vector_width, 4u);
  EXPECT_EQ(tuned.reduction.work_group_size, 32u);
  EXPECT_EQ(tuned.blas1.variant, Blas1Variant::Chunked);  // keys the file lacks keep the defaults

  EXPECT_EQ(device_params_path(info, "off"), "");
  EXPECT_EQ(device_params(info, "off").source, "default:cpu");
}

TEST(DeviceParams, MalformedFilesNameTheLine) {
  ParamsTempDir dir;
  const std::string path = dir.str() + "/bad.txt";
  auto expect_parse_error = [&](const std::string& text, std::size_t line, const std::string& part) {
    write(path, text);
    try {
      read_device_params(path, DeviceParams{});
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_parse_error("blas1.vector_width = 4\nblas1.warp = 3\n", 2, "unknown key 'blas1.warp'");
  expect_parse_error("blas1.work_group_size = many\n", 1, "blas1.work_group_size");
  expect_parse_error("blas1.work_group_size = -4\n", 1, "non-negative integer");
  expect_parse_error("blas1.variant = diagonal\n", 1, "grid_stride or chunked");
  expect_parse_error("just words\n", 1, "key = value");
  expect_parse_error("blas1.vector_width = 3\n", 1, "vector_width");
  expect_parse_error("spmv.csr_vector_min_mean_row_length = 1.5x\n", 1, "expected a number");
  expect_parse_error("cg.persistent_work_group_size = 96\n", 1, "power of two");
  expect_parse_error("spmv.row_sum_chains = 2\n", 1, "spmv.row_sum_chains");
  expect_parse_error("cg.persistent_lanes = 3\n", 1, "cg.persistent_lanes");
  expect_parse_error("cg.persistent_iterations_per_launch = 0\n", 1, "cg.persistent_iterations_per_launch");
  expect_parse_error("galerkin.work_group_size = 100\n", 1, "galerkin.work_group_size");
  expect_parse_error("spmv.stream_loads = 2\n", 1, "spmv.stream_loads");
  expect_parse_error("galerkin.max_lanes = 3\n", 1, "galerkin.max_lanes");
  expect_parse_error("galerkin.max_lanes = 256\n", 1, "galerkin.max_lanes");
  EXPECT_THROW(read_device_params(dir.str() + "/missing.txt", DeviceParams{}), Error);
}

TEST(DeviceParams, ValidationNamesTheParameter) {
  DeviceParams p;
  p.blas1.work_items_per_compute_unit = 0;
  try {
    validate_device_params(p);
    ADD_FAILURE() << "accepted zero work-items per compute unit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blas1.work_items_per_compute_unit"), std::string::npos) << e.what();
  }
}

TEST(DeviceParams, VariantNames) {
  EXPECT_EQ(to_string(Blas1Variant::GridStride), "grid_stride");
  EXPECT_EQ(to_string(Blas1Variant::Chunked), "chunked");
  EXPECT_EQ(parse_blas1_variant("Chunked"), Blas1Variant::Chunked);
  EXPECT_EQ(parse_blas1_variant("grid-stride"), Blas1Variant::GridStride);
  EXPECT_THROW(parse_blas1_variant("tiled"), Error);
}

}  // namespace
}  // namespace clkr
