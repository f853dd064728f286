// The start vector of the Lanczos runs behind the smoothers' spectrum bounds, made on the device: element
// i is a hash of (seed, i) (SplitMix64's finalizer) mapped to [-0.5, 0.5), bit for bit what the host
// computes (src/precond/lanczos_start.cpp), so that a run starts from the same vector wherever it is
// made. Without it every AMG update uploaded one start vector per level (134 MB on the finest level of
// poisson3d:256). Double precision: built with -DCLKR_DOUBLE, on devices with fp64.
#include "common.cl"

__kernel void lanczos_start(const ulong n, const ulong seed, __global double* v) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    ulong z = seed * 0x9E3779B97F4A7C15UL + (i + 1) * 0xD1B54A32D192ED03UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    z ^= z >> 31;
    v[i] = (double)(z >> 11) * 0x1.0p-53 - 0.5;
  }
}
