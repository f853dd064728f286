#!/usr/bin/env bash
# 2026-11-29 third session, call 3: command-buffer micro-benchmark; aggressive AMG with chebyshev:3 / chebyshev4:2
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
r=$OUT/session1; mkdir -p $r
g++ -O2 -std=c++17 .carry/cmdbuf/cmdbuf_bench.cpp -o /tmp/cmdbuf_bench -lOpenCL && /tmp/cmdbuf_bench NVIDIA 2>&1 | tee $r/cmdbuf.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF >$r/build.log 2>&1 && cmake --build build-gpu -j16 >>$r/build.log 2>&1 || { tail -30 $r/build.log; exit 1; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
b=build-gpu/clkr
$b bench solve jumping3d:256 poisson3d:128 --methods cg,jacobi --peers none --reps 3 --csv $r/base.csv 2>&1 | tee $r/base.txt | grep -E "^(poisson|jumping)"
for round in 1 2; do
  for config in chebyshev:3 chebyshev4:2; do
    s=${config%:*} d=${config#*:}
    echo "== $config round $round"
    $b bench solve jumping3d:256 poisson3d:128 --methods amg-single,amg-update-single --amg-aggressive 1 --amg-smoother $s --amg-degree $d \
      --peers none --reps 3 --csv $r/aggr_${s}_${d}_$round.csv 2>&1 | tee $r/aggr_${s}_${d}_$round.txt | grep -E "^(poisson|jumping)"
  done
done
echo done
