# Sourced by the benchmarks/run_gpu_*.sh scripts: a fresh results folder $out, `step` (prints a
# timestamped heading and, on the lent machine, rewrites $OUT/$out.tgz so that a run cut short still
# brings its finished steps back), `want` (whether a section is in $sections), `build_clkr` (below),
# and NVIDIA's OpenCL driver enabled with the GPUs' names recorded in $out/gpu.txt.
rm -rf "$out"
mkdir -p "$out"
step() {
  [ -n "${OUT:-}" ] && tar czf "$OUT/$out.tgz" "$out"
  echo
  echo "=== $* ($(date +%T))"
}
want() { [[ ",${sections:-}," == *",$1,"* ]]; }

# build_clkr SOURCE BUILD LOG [CMAKE_ARG...] [-- TARGET...]: configures SOURCE into BUILD as a Release
# build without tests or benchmarks (CMAKE_ARGs come after, so they can turn either back on) and builds
# the TARGETs (everything when none), appending to LOG; on failure it prints the log's tail and exits.
build_clkr() {
  local src=$1 dir=$2 log=$3
  shift 3
  local args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    args+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  { cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF \
      "${args[@]}" && cmake --build "$dir" -j"$(nproc)" ${1:+--target "$@"}; } >>"$log" 2>&1 ||
    { tail -40 "$log"; exit 1; }
}

step "enable NVIDIA OpenCL"
[ -e /usr/lib/libnvidia-opencl.so.1 ] && echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.memory --format=csv | tee "$out/gpu.txt"
