// Launch parameters as data: the default table by device type and vendor, with the measurements
// behind each value. `clkr tune` overrides it for one device and driver (device_params.cpp reads its file).
#include <cstddef>
#include <limits>
#include <string>

#include "../runtime/text.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

// One row of the default table: the first row whose type matches and whose vendor text occurs
// (case-insensitively) in the device's vendor wins; an empty vendor matches any.
struct DefaultEntry {
  DeviceType type;
  const char* vendor;
  const char* name;  // becomes DeviceParams::source as "default:<name>"
  Blas1Params blas1;
  ReductionParams reduction;
  SpmvParams spmv;
  CgParams cg;
  AmgSetupParams amg_setup = {};
  GalerkinParams galerkin = {};
  AmgCycleParams amg_cycle = {};
};

// GPUs: grid-stride loops with enough groups to fill every compute unit several times over; 8
// reduction groups per compute unit measured best for DOT on an H200 (vs 4, 16, 32) at 2^24 elements.
// CPUs: one contiguous chunk per core read with 8-wide vector loads (PoCL, Intel and AMD CPU
// runtimes run a work-group on one thread, so a work-group of one work-item per chunk is right).
// Vendors without measurements of their own fall through to their type's generic row.
// CPUs: the CSR scalar kernel over contiguous row blocks beat the CSR-vector kernel 2-10x on PoCL for
// every mean row length measured (16 to 512): never switch to the vector kernel there.
// The load-balanced CSR kernels there with one work-item per block (a work-group's barriers cost a
// CPU runtime more than they balance).
// SELL in slices of 8 rows (a cache line of doubles) sorted within 1024: a work-item walks its rows in
// turn there, so only the padding (6% on powerlaw:30000) and the locality of x and y matter.
// DIA in tiles of 128 rows: on PoCL its SpMV of poisson3d:64 took 141/261/4359 us (single/double/
// qdouble) against CSR's 742/801/6548; a row at a time it was slower than CSR (641-739/704-1018/6055-6134
// us); tiles of 32, 512 and 2048 were 5-70% slower than 128 (docs/performance-formats.md, "DIA"). --format auto
// takes DIA up to a fill of 1.2, as on GPUs: a stored slot cost 1-5x less than a CSR nonzero there.
// Row kernels entry by entry (row_load_group 1): in groups of 8 PoCL's CSR SpMV of poisson3d:48 took
// 1.27-1.35 ms against 0.46-0.47 (double, 2026-11-30), SELL's of s2rmq4m1 0.34-0.40 against 0.15-0.16.
const SpmvParams kCpuSpmv = {
    256, std::numeric_limits<double>::infinity(), 32, 0, 4, 4, 8.0, 4, RowBlocking::WorkItem, 8, 1024, 1.2, 128, 1};

// NVIDIA (clkr tune on an H200, docs/tuning.md): row kernels in work-groups of 64 are 4% faster than
// 256; the CSR-vector kernel with 4 lanes per row beats the scalar kernel from 16 entries per row on,
// 3.4x faster than 32 lanes from 12 on the tuner's row-length test matrices. CSR rows summed in four
// chains in double, one in single (measured on poisson3d:192 CG, docs/performance.md).
// The load-balanced CSR kernels from a longest row of 8x the mean (the power-law matrices of issue 13:
// 18x; the SuiteSparse SPD set of docs/benchmarks.md: at most 4x, which keeps its measured paths).
// Lanes growing past 4 from rows of more than 64 entries (16 a lane): the AMG's restriction operators.
// On an H100 (2026-12-07) poisson3d:256's R (350,761 rows of ~117 entries, binary16 values) took 6.64
// ms in a solve's 75 applications with 4 lanes, 5.46 with 8 (16 entries a lane) and 4.77 with 16 (8 a
// lane): the solve 82.0-83.6 -> 82.2 and 81.7-81.9 ms. 8 a lane would also widen rows of 33-64 entries
// (the stiff SuiteSparse matrices' CSR paths), not measured there; 16 leaves every row the tuner and
// the benchmark set measured at 4 lanes as it was.
const SpmvParams kNvidiaSpmv = [] {
  SpmvParams p{64, 16.0, 4, 0, 4, 1, 8.0, 4, RowBlocking::WorkGroup};
  p.vector_entries_per_lane = 16;
  return p;
}();

// Other GPUs: the struct's defaults, and the load-balanced CSR kernels as on NVIDIA (CSR-adaptive, whose
// scheme they follow, was designed on AMD GPUs).
const SpmvParams kGpuSpmv = {256, 12.0, 32, 0, 4, 4, 8.0, 4, RowBlocking::WorkGroup};

// NVIDIA: persistent CG up to 1.5 M rows, four work-groups of 512 per compute unit (2,048 work-items,
// what an SM of a V100, A100, H100 or H200 holds; Turing's hold 1,024, consumer Ampere's and Ada's 1,536,
// where the kernel's residency probe halves them). On an H200 (2026-11-29)
// four against one group per compute unit: poisson3d:96 0.054 against 0.098 ms an iteration, poisson3d:64
// 0.018 against 0.022, powerlaw:30000 0.034 against 0.068 (two groups: 0.016, 0.062, 0.043); the
// SuiteSparse SPD set within 0.001 ms. With one group per compute unit it ran
// 3.9x faster than the fused path on poisson3d:64 (262,144 rows), 1.35x on poisson3d:96 (884,736),
// and 2% slower on poisson3d:128 (2,097,152), where memory bounds both (docs/performance.md). With the
// load-balanced kernels up to 4 M nonzeros: powerlaw:30000 (1.7 M) ran 0.067 ms an iteration there,
// 0.79x ViennaCL's, but powerlaw:300000 (17.4 M) 0.866 ms where its SpMV alone takes 0.153 ms.
// DIA not for the persistent kernel: on an H100 (2026-11-27) poisson3d:64 ran 0.038 ms an iteration in
// DIA against CSR's 0.035 (the fused path on poisson3d:192: DIA 0.406 against 0.529).
const CgParams kNvidiaCg = {1500000, 512, 4, 64, 0, std::size_t{1} << 22, 4000000, 0, 0, 0};
// CPUs: persistent CG off (three launches cost little next to a CPU's iteration); if asked for, a
// patient wait, since an operating system may deschedule a work-group's thread for milliseconds.
// CG on the host up to 1 M nonzeros (100 k in quasi-double): on 2 cores of PoCL 3.1 it ran 1.1-2.6x
// faster per iteration than the fused kernels from nos3 (15 k) to poisson3d:48 (0.77 M), even on
// poisson3d:64 (1.8 M), and in quasi-double 1.17x faster on bcsstk14 (63 k) but 1.4x slower on
// poisson3d:32 (0.22 M) (docs/performance.md, "Small systems on CPU devices").
// Field by field: persistent_max_rows 0 (off), its work-group 256, 1 group per compute unit, 64
// iterations a launch, lanes from the row length, a patient spin limit, no balanced-entry limit, DIA
// allowed, and the host CG's limits.
const CgParams kCpuCg = {0, 256,     1,     64, 0, std::size_t{1} << 28, std::numeric_limits<std::size_t>::max(),
                         1, 1000000, 100000};

// CPUs: few, small work-groups for the AMG setup's row-per-group kernels (PoCL runs a work-group as a
// loop on one thread: more groups than cores only add scheduling).
const AmgSetupParams kCpuAmgSetup = {64, 2, 32, 4096, 2048};
// GPUs: local tables of 1024 hash slots and 256 sort keys (C rows of the Poisson hierarchies have 33-66
// entries): the long-row kernels' local arrays, not their work-items, bound how many groups a compute
// unit holds, and the kernels are latency-bound (a barrier per entry of A's row). On an H100
// (2026-11-27) the device setup of poisson3d:256 took 229-237 ms against 335-340 with 4096 and 2048
// (the numeric kernel of the time, spgemm_values_long, 115 -> ~30 ms; since 2026-11-28 the products'
// values come from galerkin_multiply, DeviceParams::galerkin); work-groups of 64, 32 per compute unit,
// were the best of 32-128 x 16-64 (docs/performance-amg-setup.md, "AMG setup on the device"). Rows past the
// tables go through global memory, as before past 4096 and 2048.
const AmgSetupParams kGpuAmgSetup = {64, 32, 32, 1024, 256};
// CPUs: one work-item per row of the AMG update's Galerkin products (GalerkinParams says why).
const GalerkinParams kCpuGalerkin = {128, 1};

// NVIDIA: the AMG's coarse levels in one launch from 10,000 rows down, up to four work-groups of 512 per
// compute unit (probed, as the persistent CG's), lanes from the row length. On an H200 (2026-11-29,
// poisson3d:128, aggressive coarsening, single-precision hierarchy) the launch for levels 2-3 (2,467 and
// 120 rows) took 48-50 us where their 11 launches' kernels took 117 us (profiled), and the solve 12.20-
// 12.64 ms against 12.80-13.44 without; from level 1 (44,490 rows) it took 150-230 us, slower than the launches
// it replaced, whose gathers the L1 serves (docs/performance-amg.md, "The coarse levels in one launch").
// The whole cycle from level 0 up to 100,000 rows: on the stiff SuiteSparse matrices (5-15 k rows) the
// finest level's ~13 launches a cycle were what an iteration cost, and in one launch the solves took
// 0.5-0.75x (bcsstk17: 248 iterations, 52-61 -> 34 ms), poisson3d:32 0.54x; at 110,592 rows
// (poisson3d:48) the solve gained 16% and the setup lost about as much, at 262,144 (poisson3d:64,
// jumping3d:64) the solve went either way between runs, at 512,000 it lost 33% (2026-12-02,
// docs/performance-amg.md, "The whole cycle in one launch").
const AmgCycleParams kNvidiaAmgCycle = {10000, 512, 4, 0, 100000};

const DefaultEntry kDefaults[] = {
    {DeviceType::Gpu,
     "nvidia",
     "gpu:nvidia",
     {Blas1Variant::GridStride, 256, 8, 1, 4},
     {256, 8},
     kNvidiaSpmv,
     kNvidiaCg,
     kGpuAmgSetup,
     {},
     kNvidiaAmgCycle},
    {DeviceType::Gpu, "", "gpu", {Blas1Variant::GridStride, 256, 8, 1, 4}, {256, 8}, kGpuSpmv, {}, kGpuAmgSetup},
    {DeviceType::Cpu,
     "",
     "cpu",
     {Blas1Variant::Chunked, 1, 1, 1, 8},
     {1, 1},
     kCpuSpmv,
     kCpuCg,
     kCpuAmgSetup,
     kCpuGalerkin},
    {DeviceType::Accelerator, "", "accelerator", {Blas1Variant::GridStride, 256, 8, 1, 4}, {256, 8}, {}, {}},
    {DeviceType::Other, "", "other", {Blas1Variant::GridStride, 256, 8, 1, 4}, {256, 8}, {}, {}},
};

}  // namespace

DeviceParams default_device_params(const DeviceInfo& info) {
  const std::string vendor = detail::to_lower(info.vendor);
  for (const auto& entry : kDefaults) {
    if (entry.type != info.type || vendor.find(entry.vendor) == std::string::npos) continue;
    DeviceParams params;
    params.source = std::string("default:") + entry.name;
    params.blas1 = entry.blas1;
    params.reduction = entry.reduction;
    params.spmv = entry.spmv;
    params.cg = entry.cg;
    params.amg_setup = entry.amg_setup;
    params.galerkin = entry.galerkin;
    params.amg_cycle = entry.amg_cycle;
    return params;
  }
  throw Error("no default launch parameters for device type " + to_string(info.type));  // the table covers all
}

}  // namespace clkr
