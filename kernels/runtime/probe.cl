// A trivial kernel built when a Context is created: it proves the compiler works and lets the
// runtime ask for the device's preferred work-group size multiple (warp / wavefront width).
__kernel void probe(__global float* x) { x[get_global_id(0)] += 1.0f; }
