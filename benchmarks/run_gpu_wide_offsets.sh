#!/usr/bin/env bash
# poisson3d:700 (2.4e9 nonzeros: 64-bit row offsets) in double CG on the GPU, against poisson3d:640
# (1.8e9: 32-bit offsets) for the time per iteration; device memory sampled by nvidia-smi, host memory
# by /usr/bin/time. About 9 minutes on an H100 (most of it generating and uploading the matrices);
# docs/performance-formats.md ("Past 2^31 nonzeros") has the results.
#   run(carry=[], command="bash benchmarks/run_gpu_wide_offsets.sh")
#   CASES="p700_solve" bash benchmarks/run_gpu_wide_offsets.sh            (one case of the three: 4 minutes)
# Results in ./gpu-wide-offsets (and $OUT/gpu-wide-offsets.tgz on the lent machine).
set -uo pipefail
out=gpu-wide-offsets
source "$(dirname "$0")/gpu_run_steps.sh"
free -g | tee -a $out/gpu.txt
step "build"
build_clkr . build-p700 "$out/build.log" -- clkr_app
clkr=build-p700/clkr
export CLKR_CACHE_DIR=$PWD/build-p700/cache
$clkr devices --no-check 2>&1 | tee -a $out/gpu.txt
$clkr info poisson3d:64 2>&1 | grep -i -E "max|alloc|memory" | head -5 | tee -a $out/gpu.txt
run() {  # name spec extra...
  local name=$1; shift
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 > $out/mem_$name.csv &
  local smi=$!
  /usr/bin/time -v $clkr solve "$@" --device nvidia --precision double --precond none --json > $out/$name.json 2> $out/$name.err
  echo "rc $?" >> $out/$name.err
  kill $smi
  echo "== $name: peak device MiB $(sort -n $out/mem_$name.csv | tail -1)"
  grep -E "Maximum resident|Elapsed|rc " $out/$name.err
  python3 - $out/$name.json <<'PY'
import json,sys
try:
  d=json.load(open(sys.argv[1]))
except Exception as e:
  print("json:", e); print(open(sys.argv[1]).read()[:2000]); sys.exit()
def walk(o,p=""):
  if isinstance(o,dict):
    for k,v in o.items(): walk(v,p+"."+k)
  elif not isinstance(o,list): print(p,o)
walk(d)
PY
}
cases=${CASES:-p640_300 p700_300 p700_solve}
for c in $cases; do
  step "$c"
  case $c in
    p640_300) run p640_300 poisson3d:640 --format csr --maxit 300 --tol 1e-30 ;;
    p700_300) run p700_300 poisson3d:700 --format csr --maxit 300 --tol 1e-30 ;;
    p700_solve) run p700_solve poisson3d:700 --tol 1e-8 --maxit 5000 ;;
    *) echo "unknown case $c"; exit 2 ;;
  esac
done
step "done"
