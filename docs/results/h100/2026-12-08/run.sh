set -u
export CLKR_COMMIT=$1
t0=$SECONDS
CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=14 CLKR_GPU_TEST_FILTER='BarrierTimesOut|GridBarrier|CoarseCycleAbort|Persistent' timeout 240 bash .ci/gpu-test .carry | tail -6
echo "== tests done at $((SECONDS-t0)) s"
bin=$(ls build-gpu-test/tests/clkr_solver_tests* | head -1)
export CLKR_DEVICE=nvidia
timeout 90 $bin --gtest_filter='*BarrierTimesOut*' --gtest_repeat=30 --gtest_brief=1 2>&1 | tail -5 | tee $OUT/repeat.txt
echo "== repeat done at $((SECONDS-t0)) s"
mkdir -p $OUT/p256 $OUT/j192
for r in 1 2; do
  timeout 40 build-gpu-test/clkr solve poisson3d:256 > $OUT/p256/cg_$r.txt 2>&1
  timeout 40 build-gpu-test/clkr solve poisson3d:256 --precond amg --amg-aggressive 1 --precond-precision half > $OUT/p256/amg_$r.txt 2>&1
  grep -h "^time\|^iterations\|^precond\|^device" $OUT/p256/cg_$r.txt $OUT/p256/amg_$r.txt
done
echo "== p256 done at $((SECONDS-t0)) s"
timeout 100 build-gpu-test/clkr bench solve jumping3d:192 --methods jacobi,amg-half --amg-aggressive 1 --peers none --reps 2 --csv $OUT/j192/solve.csv > $OUT/j192/solve.txt 2>$OUT/j192/solve.err; tail -4 $OUT/j192/solve.txt
echo "== j192 done at $((SECONDS-t0)) s"
left=$((${2:-575} - (SECONDS-t0)))
timeout $left bash benchmarks/run_gpu_before_after.sh .carry .carry/before 1
tar czf $OUT/gpu-before-after.tgz gpu-before-after
