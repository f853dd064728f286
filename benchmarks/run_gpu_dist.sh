#!/usr/bin/env bash
# The two-GPU measurement of docs/distributed.md in one go (the device machine is lent by the minute):
# builds `clkr` with the distributed solvers, then times CG per iteration on one device (the fused
# single-device path), and under mpirun on 1 and 2 ranks (strong scaling: poisson3d:192 and 256) and on
# 2 ranks with 2.01x the rows (weak scaling: poisson3d:242 and 323), each rank generating its own rows,
# every CG variant (classic, single-reduction, pipelined); then one solve's per-rank report per variant. Results land in ./dist-results, and as $OUT/dist-results.tgz.
#   usage: OUT=/some/dir benchmarks/run_gpu_dist.sh          (about 5 minutes on an H200 pair)
set -uo pipefail
out=dist-results
source "$(dirname "$0")/gpu_run_steps.sh"
nvidia-smi topo -m > "$out/topology.txt" 2>&1
mpirun --version 2>&1 | head -1 | tee "$out/mpi.txt"

step "build (CLKR_WITH_MPI)"
build_clkr . build-dist "$out/build.log" -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_BUILD_PYTHON=OFF -DCLKR_WITH_MPI=ON -- clkr_app
export CLKR_CACHE_DIR=$PWD/build-dist/kernel-cache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
clkr=build-dist/clkr
# Each rank takes the node's GPU of its node-local rank (the default): rank 0 GPU 0, rank 1 GPU 1.
run() { mpirun --bind-to none "$@"; }
$clkr devices --no-check 2>/dev/null | tee "$out/devices.txt"

common=(--iterations 500 --reps 3 --format csr --precisions double)
step "one device, the fused CG (no mpirun): the best one GPU does"
CLKR_DEVICE=nvidia $clkr bench cg poisson3d:192 poisson3d:256 --formats csr --precisions double --peers none \
  --iterations 500 --reps 3 --csv "$out/single_device.csv" 2>/dev/null | tail -5

step "strong scaling: 1 and 2 ranks on poisson3d:192 and poisson3d:256"
for n in 1 2; do
  run -np $n $clkr bench cg poisson3d:192 poisson3d:256 "${common[@]}" --csv "$out/strong_np$n.csv" 2>&1 |
    tee "$out/strong_np$n.txt"
done

step "weak scaling: 2 ranks on 2.01x the rows (poisson3d:242 vs 192, poisson3d:323 vs 256)"
run -np 2 $clkr bench cg poisson3d:242 poisson3d:323 "${common[@]}" --csv "$out/weak_np2.csv" 2>&1 |
  tee "$out/weak_np2.txt"

step "one solve per rank count, with the per-rank report (communication share)"
for n in 1 2; do
  for v in classic pipelined; do
    run -np $n $clkr solve poisson3d:256 --cg-variant $v --format csr 2>&1 | tee "$out/solve256_${v}_np$n.txt"
    run -np $n $clkr solve poisson3d:256 --cg-variant $v --format csr --json >"$out/solve256_${v}_np$n.json" 2>&1
  done
done

step "done"
