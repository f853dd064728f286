#!/usr/bin/env bash
# One clkr command under several sets of device parameters, on the GPU machine: each variant gets its own
# cache directory whose parameter file (docs/tuning.md, "Where the result is stored") holds the variant's
# keys over the defaults, so a launch shape can be measured before it becomes a default. The output of
# each variant lands in ./gpu-param-sweep/<name>.txt (and <name>.csv when the command takes --csv),
# and $OUT/gpu-param-sweep.tgz after every variant.
#   usage: benchmarks/run_gpu_param_sweep.sh VARIANTS CLKR_ARGS...
#     VARIANTS: variants separated by spaces, each NAME or NAME:key=value,key=value (NAME alone: the
#               defaults), e.g. "default wg128:spmv.work_group_size=128 lanes32:spmv.vector_lanes=32"
#     CLKR_ARGS: the clkr command, e.g. bench spmv powerlaw:300000 --formats csr-balanced --precisions double
#   BUILD_DIR: a build with clkr in it (default build-gpu; built there when it has none)
set -uo pipefail
variants=$1
shift
out=gpu-param-sweep
source "$(dirname "$0")/gpu_run_steps.sh"

build=${BUILD_DIR:-build-gpu}
if [ ! -x "$build/clkr" ]; then
  step "build"
  build_clkr . "$build" "$out/build.log" -- clkr_app
fi
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia}
# The parameter file's name: the OpenCL device name and driver version, characters other than letters,
# digits, '.' and '-' as '_' (device_params_path); NVIDIA's OpenCL reports nvidia-smi's name and version.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')

for variant in $variants; do
  vname=${variant%%:*}
  cache=$PWD/$out/cache-$vname
  mkdir -p "$cache/params"
  if [[ $variant == *:* ]]; then
    printf '# benchmarks/run_gpu_param_sweep.sh variant %s\n' "$vname" >"$cache/params/$file"
    tr ',' '\n' <<<"${variant#*:}" | sed 's/=/ = /' >>"$cache/params/$file"
  fi
  step "variant $vname: clkr $*"
  args=("$@")
  for i in "${!args[@]}"; do [ "${args[$i]}" = "--csv" ] && args[i + 1]="$out/$vname.csv"; done
  # Whether clkr read the file: clkr solve names its parameters' source (not every command does).
  if [[ $variant == *:* ]]; then
    cat "$cache/params/$file" >"$out/$vname.txt"
    CLKR_CACHE_DIR=$cache "$build/clkr" solve poisson3d:8 2>&1 | grep -q "parameters tuned:" ||
      { echo "ERROR: variant $vname: clkr did not load $cache/params/$file" | tee -a "$out/$vname.txt"; continue; }
  else
    : >"$out/$vname.txt"
  fi
  CLKR_CACHE_DIR=$cache "$build/clkr" "${args[@]}" 2>&1 | tee -a "$out/$vname.txt"
done
step "done"
