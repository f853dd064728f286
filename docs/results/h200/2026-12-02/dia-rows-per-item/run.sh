#!/usr/bin/env bash
# Session 2026-12-02, third machine: do binary16 values gain more when a work-item sums 2 or 4
# consecutive rows (device parameters spmv.rows_per_work_item and spmv.dia_tile_rows, the CPUs' DIA
# tiles, here on NVIDIA), so that each of its loads brings more bytes? jumping3d:256's profiled AMG-PCG
# (kernel tables in the JSON) with single and half values, per setting; then bench solve for each.
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='HalfValuesRange|SpmvHalf'
timeout 200 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS - t0)) s"
res=dia-rows; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/dia-rows.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
params=$CLKR_CACHE_DIR/params/NVIDIA_H200_$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1).txt
mkdir -p $(dirname $params)
left() { echo $((585 - SECONDS)); }
table() {  # json: the preconditioner's DIA/CSR kernels and the solve
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ks = {k['name']: k for k in d['kernels'] if k['blas'] == 'preconditioner'}
row = ' '.join('%s %.2f' % (n, ks[n]['seconds'] * 1e3) for n in ('chebyshev_step', 'spmv_residual', 'spmv') if n in ks)
print(sys.argv[1], 'its', d['iterations'], 'solve %.1f ms' % (d['solve_seconds'] * 1e3), row)
PY
}
for cfg in default rows2 rows4; do
  case $cfg in
    default) rm -f $params ;;
    rows2) printf 'spmv.rows_per_work_item = 2\nspmv.dia_tile_rows = 2\n' >$params ;;
    rows4) printf 'spmv.rows_per_work_item = 4\nspmv.dia_tile_rows = 4\n' >$params ;;
  esac
  for p in single half; do
    timeout 60 $b solve jumping3d:256 --precond amg --precond-precision $p --amg-aggressive 1 --json \
      >$res/${cfg}_$p.json 2>$res/${cfg}_$p.err && table $res/${cfg}_$p.json
  done
  pack
done
for cfg in default rows2; do
  case $cfg in
    default) rm -f $params ;;
    rows2) printf 'spmv.rows_per_work_item = 2\nspmv.dia_tile_rows = 2\n' >$params ;;
  esac
  timeout $(left) $b bench solve jumping3d:256 --methods jacobi,amg-single,amg-half --amg-aggressive 1 --peers none \
    --reps 3 --csv $res/bench_$cfg.csv 2>&1 | grep -E "^jumping"
  pack
done
rm -f $params
echo "all done $((SECONDS - t0)) s"; pack
