#!/usr/bin/env bash
# Builds clkr and runs the GPU benchmark set in one go (the device machine is lent by the minute):
# devices, BLAS1 sweep, SpMV per format, CG per matrix/format/precision against ViennaCL (same
# OpenCL device) and CuPy/cuSPARSE, and mixed-precision IR against double CG, with the copy bandwidth
# measured in the same run. Results land in ./gpu-results (and, on the lent machine, as one archive
# $OUT/gpu-results.tgz, since only a few files come back from there).
#   usage: benchmarks/run_gpu_benchmarks.sh [CARRY_DIR]   (CARRY_DIR holds include/viennacl and matrices/)
set -uo pipefail
carry=${1:-.carry}
out=gpu-results
rm -rf "$out"
mkdir -p "$out"
step() { echo; echo "=== $* ($(date +%T))"; }

step "enable NVIDIA OpenCL"
[ -e /usr/lib/libnvidia-opencl.so.1 ] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv | tee "$out/gpu.txt"

step "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DVIENNACL_ROOT="$PWD/$carry/include" \
  > "$out/build.log" 2>&1 && cmake --build build-gpu -j"$(nproc)" >> "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
grep -E "ViennaCL|Eigen" "$out/build.log" | head -3
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia} CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
bin=build-gpu

step "clkr devices"
$bin/clkr devices 2>/dev/null | tee "$out/devices.txt"

step "BLAS1 sweep (three precisions)"
for p in double single qdouble; do
  $bin/benchmarks/clkr_bench_blas1 --precision $p --min 1000 --max 33554432 --points 12 --reps 20 \
    --csv "$out/blas1_$p.csv" 2>/dev/null | tail -14
done

step "SpMV per format on poisson3d:192"
for p in double single qdouble; do
  $bin/benchmarks/clkr_bench_spmv --matrix poisson3d:192 --precision $p --reps 20 --csv "$out/spmv_$p.csv" 2>/dev/null | tail -8
done

step "CG per matrix, format and precision, against ViennaCL"
mats="poisson3d:128 poisson3d:192 $carry/matrices/bcsstk17.mtx.gz $carry/matrices/bcsstk16.mtx $carry/matrices/s3rmq4m1.mtx"
$bin/clkr bench cg $mats --formats csr,ell,hyb --precisions double,single,qdouble --iterations 500 --reps 5 \
  --peers viennacl --csv "$out/cg.csv" --json "$out/cg.json" 2>"$out/cg.err" | tee "$out/cg.txt"

step "CuPy/cuSPARSE CG on the same matrices"
PYTHONUNBUFFERED=1 python3 benchmarks/cupy_cg.py --iterations 500 --reps 5 $mats 2>"$out/cupy.err" | tee "$out/cupy.csv"

step "time to a 1e-10 true residual on poisson3d:192: double CG vs mixed-precision IR"
for fmt in ell csr; do
  for prec in double mixed; do
    $bin/clkr solve poisson3d:192 --solver cg --format $fmt --precision $prec --tol 1e-10 --rhs ones --json \
      > "$out/solve_${prec}_$fmt.json" 2>/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {k: d.get(k) for k in ('converged','iterations','inner_iterations','true_relative_residual','solve_seconds')})" \
      "$out/solve_${prec}_$fmt.json" "$prec $fmt"
  done
done
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-results.tgz" "$out"
step "done"
