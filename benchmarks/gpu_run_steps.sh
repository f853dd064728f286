# Sourced by the benchmarks/run_gpu_*.sh scripts: a fresh results folder $out, `step` (prints a
# timestamped heading and, on the lent machine, rewrites $OUT/$out.tgz so that a run cut short still
# brings its finished steps back), `want` (whether a section is in $sections), and NVIDIA's OpenCL
# driver enabled with the GPU's name recorded in $out/gpu.txt.
rm -rf "$out"
mkdir -p "$out"
step() {
  [ -n "${OUT:-}" ] && tar czf "$OUT/$out.tgz" "$out"
  echo
  echo "=== $* ($(date +%T))"
}
want() { [[ ",$sections," == *",$1,"* ]]; }

step "enable NVIDIA OpenCL"
[ -e /usr/lib/libnvidia-opencl.so.1 ] && echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
