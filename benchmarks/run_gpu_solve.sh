#!/usr/bin/env bash
# Time to solution on the GPU machine, in one go: clkr's CG with every preconditioner (the AMG's setup
# by phase and level, its update step, a single-precision hierarchy) against clkr's unpreconditioned
# and Jacobi CG and CuPy's CG, on Poisson problems of three sizes, anisotropic and jumping-coefficient
# problems and the largest SPD matrices of ../shared/matrices. Results land in ./gpu-solve-results
# (and, on the lent machine, as one archive $OUT/gpu-solve-results.tgz, rewritten after every step so
# that a run cut short still brings its finished steps back).
#   usage: benchmarks/run_gpu_solve.sh [CARRY_DIR] [SECTIONS]
#     CARRY_DIR holds matrices/ (the SuiteSparse files); SECTIONS: any of report,poisson,hard,suitesparse,
#     jacobi-paths,plain,cupy,smoother,elasticity,host-backend,mixed,mixed-delta,profile256 (default all)
set -uo pipefail
source "$(dirname "$0")/carried_matrix.sh"
carry=${1:-.carry}
sections=${2:-report,poisson,hard,suitesparse,jacobi-paths,plain,cupy,smoother,elasticity,host-backend,mixed,mixed-delta,profile256}
out=gpu-solve-results
source "$(dirname "$0")/gpu_run_steps.sh"
nproc | sed 's/^/host cores: /' | tee -a "$out/gpu.txt"

step "build"
build_clkr . build-gpu "$out/build.log"
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia} CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
bin=build-gpu/clkr
$bin devices --no-check 2>/dev/null | grep -E '^ \*' | tee -a "$out/gpu.txt"

suite=""
for m in bcsstk17.mtx.gz bcsstk16.mtx s2rmq4m1.mtx s3rmq4m1.mtx s1rmq4m1.mtx bcsstk25.mtx s2rmt3m1.mtx s3rmt3m1.mtx; do
  f=$(carried "$m")
  if [ -n "$f" ]; then suite="$suite $f"; else echo "note: $m not carried, left out"; fi
done

if want report; then
  step "clkr solve poisson3d:192 --precond amg (setup by phase and level, kernels), double and single hierarchy"
  $bin solve poisson3d:192 --precond amg 2>&1 | tee "$out/amg_poisson192.txt"
  $bin solve poisson3d:192 --precond amg --precond-precision single 2>&1 | tee "$out/amg_poisson192_single.txt" |
    grep -E "^(setup|status|iterations|time|to solution)"
fi

if want profile256; then
  # Issue 11's poisson3d:256 solve phase: where an AMG-PCG iteration's time goes, kernel by kernel (device
  # time and GB/s of each, against the copy bandwidth that `clkr bench blas1` measures), beside the
  # unpreconditioned CG it is compared with. Run twice: the second report is the one to read (the first
  # may include the driver's first-touch costs).
  for round in 1 2; do
    step "clkr solve poisson3d:256, aggressive first level, binary16 values: kernels, round $round"
    $bin solve poisson3d:256 --precond amg --amg-aggressive 1 --precond-precision half 2>&1 |
      tee "$out/profile256_amg_$round.txt" | grep -E "^(levels|  |iterations|time|to solution)"
  done
  step "clkr solve poisson3d:256, CG: kernels"
  $bin solve poisson3d:256 2>&1 | tee "$out/profile256_cg.txt" | grep -E "^(iterations|time|path)"
  $bin bench blas1 --ops copy,axpy --precisions single,double --sizes 16777216 2>&1 | tee "$out/profile256_blas1.txt" | tail -6
fi

if want poisson; then
  step "bench solve: Poisson 128/192/256 (cg, jacobi, amg, amg-single, amg-update)"
  $bin bench solve poisson3d:128 poisson3d:192 poisson3d:256 --methods cg,jacobi,amg,amg-single,amg-update \
    --peers none --reps 2 --csv "$out/solve_poisson.csv" 2>"$out/solve_poisson.err" | tee "$out/solve_poisson.txt"
  step "bench solve: Poisson 128/192/256, AMG with the damped-Jacobi smoother (one sweep each way)"
  $bin bench solve poisson3d:128 poisson3d:192 poisson3d:256 --methods amg,amg-single --amg-smoother jacobi \
    --peers none --reps 2 --csv "$out/solve_poisson_jacobi_smoother.csv" 2>"$out/solve_poisson_jacobi_smoother.err" |
    tee "$out/solve_poisson_jacobi_smoother.txt"
fi

if want hard; then
  step "bench solve: anisotropic and jumping coefficients"
  $bin bench solve anisotropic3d:128 jumping3d:128 anisotropic3d:192 jumping3d:192 --methods cg,jacobi,amg,amg-single \
    --peers none --reps 2 --csv "$out/solve_hard.csv" 2>"$out/solve_hard.err" | tee "$out/solve_hard.txt"
  $bin bench solve anisotropic3d:128 jumping3d:128 anisotropic3d:192 jumping3d:192 --methods amg,amg-single \
    --amg-smoother jacobi --peers none --reps 2 --csv "$out/solve_hard_jacobi_smoother.csv" \
    2>"$out/solve_hard_jacobi_smoother.err" | tee "$out/solve_hard_jacobi_smoother.txt"
fi

if want suitesparse && [ -n "$suite" ]; then
  step "bench solve: the largest SPD matrices of ../shared/matrices"
  $bin bench solve $suite --methods cg,jacobi,amg --peers none --reps 2 --maxit 40000 \
    --csv "$out/solve_suitesparse.csv" 2>"$out/solve_suitesparse.err" | tee "$out/solve_suitesparse.txt"
fi

if want jacobi-paths && [ -n "$suite" ]; then
  # CG and Jacobi-CG on the persistent kernel (the default up to cg.persistent_max_rows) against the
  # fused path (a parameter file with cg.persistent_max_rows = 0), alternated in two rounds: the same-card
  # comparison of Jacobi-CG on the persistent kernel (docs/performance.md, 2026-12-06).
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
  file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')
  mkdir -p "$out/cache-fused/params"
  echo "cg.persistent_max_rows = 0" >"$out/cache-fused/params/$file"
  for round in 1 2; do
    for path in persistent fused; do
      cache=$CLKR_CACHE_DIR
      [ "$path" = fused ] && cache=$PWD/$out/cache-fused
      step "bench solve: CG and Jacobi-CG on the $path path, round $round"
      CLKR_CACHE_DIR=$cache $bin bench solve $suite --methods cg,jacobi --peers none --reps 3 --maxit 40000 \
        --csv "$out/solve_jacobi_${path}_$round.csv" 2>"$out/solve_jacobi_${path}_$round.err" |
        tee "$out/solve_jacobi_${path}_$round.txt"
    done
  done
fi

if want plain && [ -n "$suite" ]; then
  # Plain aggregation (--amg-prolongator-relaxation 0: P = P_tent) against smoothed aggregation on the
  # stiff SPD matrices, alternated in two rounds, beside Jacobi-CG (the persistent kernel): on 2 PoCL
  # cores it halved these matrices' setup at the same iterations (docs/preconditioners.md, 2026-12-06).
  for round in 1 2; do
    for relaxation in 1 0; do
      step "bench solve: the stiff SPD matrices, prolongator relaxation $relaxation, round $round"
      $bin bench solve $suite --methods jacobi,amg --amg-prolongator-relaxation "$relaxation" --peers none --reps 3 \
        --maxit 40000 --csv "$out/solve_plain_${relaxation}_$round.csv" 2>"$out/solve_plain_${relaxation}_$round.err" |
        tee "$out/solve_plain_${relaxation}_$round.txt"
    done
  done
fi

if want smoother; then
  # The fourth-kind Chebyshev smoother (degrees 3 and 2) against the default (first kind, degree 3), in
  # alternating rounds: on 2 PoCL cores it took 8-18% fewer iterations on the generated 3D problems at
  # the same cost per iteration, and degree 2 a 9-37% shorter solve (docs/preconditioners.md).
  for round in 1 2; do
    for config in chebyshev:3 chebyshev4:3 chebyshev4:2; do
      smoother=${config%:*} degree=${config#*:} name=${config/:/_}
      step "bench solve: smoother $smoother degree $degree, round $round (Poisson 128/256, anisotropic and jumping 256)"
      $bin bench solve poisson3d:128 poisson3d:256 anisotropic3d:256 jumping3d:256 --methods amg-single,amg-update-single \
        --amg-smoother "$smoother" --amg-degree "$degree" --peers none --reps 3 --csv "$out/solve_smoother_${name}_$round.csv" \
        2>"$out/solve_smoother_${name}_$round.err" | tee "$out/solve_smoother_${name}_$round.txt"
    done
  done
fi

if want elasticity; then
  # elasticity3d with the rigid-body modes against the constants (the setup then runs on the host: a
  # near-null space and nodes of three unknowns), against Jacobi-CG: on 2 PoCL cores the modes took a
  # third of the iterations off and cost 1.6-1.7x the setup (docs/preconditioners.md, 2026-12-06).
  # Each also with plain aggregation (prolongator relaxation 0), which on 2 PoCL cores halved the setup
  # for 15-45% more iterations.
  for config in constant:1 rigid:1 constant:0 rigid:0; do
    near_null=${config%:*} relaxation=${config#*:} name=${config/:/_} methods=amg,amg-single
    [ "$relaxation" = 1 ] && methods=cg,jacobi,amg,amg-single  # the Krylov baselines once per near-null space
    step "bench solve: elasticity3d 32/48/64, near-null space $near_null, prolongator relaxation $relaxation"
    $bin bench solve elasticity3d:32 elasticity3d:48 elasticity3d:64 --methods "$methods" \
      --amg-near-null-space "$near_null" --amg-prolongator-relaxation "$relaxation" --peers none --reps 3 \
      --csv "$out/solve_elasticity_$name.csv" 2>"$out/solve_elasticity_$name.err" | tee "$out/solve_elasticity_$name.txt"
  done
fi

if want host-backend && [ -n "$suite" ]; then
  # The stiff SPD matrices (at most 15 k rows) with the AMG on the host backend of the GPU machine
  # (OpenMP on its cores: Chebyshev and Gauss-Seidel smoothing, smoothed and plain aggregation) against
  # the GPU's CG and Jacobi-CG and the host's, in two alternating rounds: on small matrices the GPU's
  # AMG pays a launch per kernel per level where the host's cycle pays a loop.
  for round in 1 2; do
    step "bench solve: the stiff SPD matrices, GPU against host backend, round $round"
    $bin bench solve $suite --methods cg,jacobi,amg,host:cg,host:jacobi,host:amg,host:amg-plain,host:amg-gs,host:amg-gs-plain \
      --peers none --reps 3 --maxit 40000 --csv "$out/solve_host_backend_$round.csv" \
      2>"$out/solve_host_backend_$round.err" | tee "$out/solve_host_backend_$round.txt"
  done
fi

if want mixed; then
  # Precision mixed with a preconditioner (reliable-update PCG: the inner PCG and M in single, the
  # residual replaced from double every decade) against the double solve with the same hierarchy, in
  # two alternating rounds: the configurations of issue 11's poisson3d:256 and jumping3d:256 targets
  # (binary16 hierarchy values, aggressive first level), and Jacobi-CG against its mixed version.
  for round in 1 2; do
    step "bench solve: mixed precision with a preconditioner, round $round"
    $bin bench solve poisson3d:128 poisson3d:256 --methods cg,amg-half,amg-half-mixed --amg-aggressive 1 \
      --peers none --reps 3 --csv "$out/solve_mixed_poisson_$round.csv" 2>"$out/solve_mixed_poisson_$round.err" |
      tee "$out/solve_mixed_poisson_$round.txt"
    $bin bench solve jumping3d:256 --methods jacobi,jacobi-mixed,amg-half,amg-half-mixed --amg-aggressive 1 \
      --peers none --reps 3 --csv "$out/solve_mixed_jumping_$round.csv" 2>"$out/solve_mixed_jumping_$round.err" |
      tee "$out/solve_mixed_jumping_$round.txt"
  done
fi

if want mixed-delta; then
  # The reliable update's drop (--inner-tol, delta): fewer updates save their double-precision passes
  # (about 200 bytes a row each) but let single precision's CG drift longer. issue 11's poisson3d:256
  # configuration (binary16 values, aggressive first level) and jumping3d:256, two alternating rounds,
  # the double PCG and unpreconditioned CG in the same call.
  for round in 1 2; do
    step "bench solve: reliable-update drops 0.1, 0.01, 0.001, 0.0001, round $round"
    $bin bench solve poisson3d:256 jumping3d:256 --methods cg,amg-half --amg-aggressive 1 --peers none --reps 3 \
      --csv "$out/solve_delta_base_$round.csv" 2>"$out/solve_delta_base_$round.err" | tee "$out/solve_delta_base_$round.txt"
    for delta in 0.1 0.01 0.001 0.0001; do
      $bin bench solve poisson3d:256 jumping3d:256 --methods amg-half-mixed --amg-aggressive 1 --inner-tol "$delta" \
        --peers none --reps 3 --csv "$out/solve_delta_${delta}_$round.csv" 2>"$out/solve_delta_${delta}_$round.err" |
        tee "$out/solve_delta_${delta}_$round.txt"
    done
  done
fi

if want cupy; then
  step "CuPy/cuSPARSE CG to the same tolerance"
  PYTHONUNBUFFERED=1 python3 benchmarks/cupy_solve.py --reps 2 poisson3d:128 poisson3d:192 poisson3d:256 \
    anisotropic3d:128 jumping3d:128 anisotropic3d:192 jumping3d:192 2>"$out/cupy.err" | tee "$out/cupy_solve.csv"
fi
step "done"
