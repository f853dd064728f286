#!/usr/bin/env bash
# Builds clkr and runs the GPU benchmark set in one go (the device machine is lent by the minute):
# devices, BLAS1 sweep, SpMV per format, CG per matrix/format/precision against ViennaCL (same
# OpenCL device) and CuPy/cuSPARSE, and mixed-precision IR against double CG, with the copy bandwidth
# measured in the same run. Results land in ./gpu-results (and, on the lent machine, as one archive
# $OUT/gpu-results.tgz, since only a few files come back from there).
#   usage: benchmarks/run_gpu_benchmarks.sh [CARRY_DIR]   (CARRY_DIR holds include/viennacl and matrices/)
set -uo pipefail
source "$(dirname "$0")/carried_matrix.sh"
carry=${1:-.carry}
out=gpu-results
source "$(dirname "$0")/gpu_run_steps.sh"

step "build"
build_clkr . build-gpu "$out/build.log" -DCLKR_BUILD_BENCHMARKS=ON -DVIENNACL_ROOT="$PWD/$carry/include"
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

# The largest SPD matrices of ../shared/matrices (SOURCES.md), as many as were carried.
small=""
for m in bcsstk17.mtx.gz bcsstk16.mtx s2rmq4m1.mtx s3rmq4m1.mtx s1rmq4m1.mtx bcsstk25.mtx s2rmt3m1.mtx s3rmt3m1.mtx; do
  f=$(carried "$m")
  if [ -n "$f" ]; then small="$small $f"; else echo "note: $m not carried, left out"; fi
done

step "persistent CG against the fused path: true residual (--verify) and iterations, three precisions"
for m in $(carried bcsstk16.mtx) $(carried s3rmq4m1.mtx) poisson3d:40; do
  for prec in double qdouble single; do
    tol=1e-10; [ $prec = single ] && tol=1e-5
    for path in persistent fused; do
      timeout 120 $bin/clkr solve "$m" --format csr --precision $prec --tol $tol --maxit 20000 --cg-path $path \
        --verify --json > "$out/check.json" 2>"$out/check.err"
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {x: d.get(x) for x in ('status','iterations','true_relative_residual')}, 'fell back!' if sys.argv[3]=='persistent' and 'cg_update_xr' in json.dumps(d) else '')" \
        "$out/check.json" "$(basename $m) $prec $path" $path || cat "$out/check.err"
    done
  done
done | tee "$out/persistent_check.txt"

step "CG per matrix, format and precision, against ViennaCL (CSR: persistent kernel where Auto picks it)"
mats="poisson3d:128 poisson3d:192$small"
$bin/clkr bench cg $mats --formats csr,ell,hyb --precisions double,single,qdouble --iterations 500 --reps 5 \
  --peers viennacl --csv "$out/cg.csv" --json "$out/cg.json" 2>"$out/cg.err" | tee "$out/cg.txt"

step "CG on CSR: persistent kernel against the fused path, by size"
for path in persistent fused; do
  $bin/clkr bench cg poisson3d:24 poisson3d:40 poisson3d:64 poisson3d:96 poisson3d:128$small --formats csr \
    --precisions double --iterations 500 --reps 5 --peers none --cg-path $path --csv "$out/cg_path_$path.csv" \
    2>>"$out/cg.err" | tee "$out/cg_path_$path.txt"
done

step "CuPy/cuSPARSE CG on the same matrices"
PYTHONUNBUFFERED=1 python3 benchmarks/cupy_cg.py --iterations 500 --reps 5 $mats poisson3d:24 poisson3d:40 poisson3d:64 poisson3d:96 \
  2>"$out/cupy.err" | tee "$out/cupy.csv"

step "time to a 1e-10 true residual on poisson3d:192: double CG vs mixed-precision IR"
for fmt in ell csr; do
  for prec in double mixed; do
    $bin/clkr solve poisson3d:192 --solver cg --format $fmt --precision $prec --tol 1e-10 --rhs ones --json \
      > "$out/solve_${prec}_$fmt.json" 2>/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {k: d.get(k) for k in ('converged','iterations','inner_iterations','true_relative_residual','solve_seconds')})" \
      "$out/solve_${prec}_$fmt.json" "$prec $fmt"
  done
done
step "done"
