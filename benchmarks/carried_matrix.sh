# Sourced by the benchmarks/run_gpu_*.sh scripts: `carried NAME` prints the path of the matrix file NAME
# in $carry/matrices, or of its gzip-compressed copy NAME.gz (how .ci/gpu-carry packs the collection to
# fit the device tool's 64 MiB), and nothing when neither was carried.
carried() {
  local f
  for f in "$carry/matrices/$1" "$carry/matrices/$1.gz"; do
    if [ -f "$f" ]; then
      echo "$f"
      return
    fi
  done
}
