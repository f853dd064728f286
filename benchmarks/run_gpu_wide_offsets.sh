#!/usr/bin/env bash
# poisson3d:700 (2.4e9 nonzeros: 64-bit row offsets) in double CG on the GPU, against poisson3d:640
# (1.8e9: 32-bit offsets) for the time per iteration; device memory sampled by nvidia-smi, host memory
# by /usr/bin/time. About 9 minutes on an H100 (most of it generating and uploading the matrices);
# docs/performance-formats.md ("Past 2^31 nonzeros") has the results.
#   run(carry=[], command="bash benchmarks/run_gpu_wide_offsets.sh")   (files in $OUT)
#   CASES="p700_solve" bash benchmarks/run_gpu_wide_offsets.sh            (one case of the three: 4 minutes)
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
free -g | tee -a $OUT/gpu.txt
{ cmake -S . -B build-p700 -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF &&
  cmake --build build-p700 -j16 --target clkr_app; } > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
clkr=build-p700/clkr
export CLKR_CACHE_DIR=$PWD/build-p700/cache
$clkr devices --no-check 2>&1 | tee -a $OUT/gpu.txt
$clkr info poisson3d:64 2>&1 | grep -i -E "max|alloc|memory" | head -5 | tee -a $OUT/gpu.txt
run() {  # name spec extra...
  local name=$1; shift
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 > $OUT/mem_$name.csv &
  local smi=$!
  /usr/bin/time -v $clkr solve "$@" --device nvidia --precision double --precond none --json > $OUT/$name.json 2> $OUT/$name.err
  echo "rc $?" >> $OUT/$name.err
  kill $smi
  echo "== $name: peak device MiB $(sort -n $OUT/mem_$name.csv | tail -1)"
  grep -E "Maximum resident|Elapsed|rc " $OUT/$name.err
  python3 - $OUT/$name.json <<'PY'
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
  case $c in
    p640_300) run p640_300 poisson3d:640 --format csr --maxit 300 --tol 1e-30 ;;
    p700_300) run p700_300 poisson3d:700 --format csr --maxit 300 --tol 1e-30 ;;
    p700_solve) run p700_solve poisson3d:700 --tol 1e-8 --maxit 5000 ;;
    *) echo "unknown case $c"; exit 2 ;;
  esac
done
