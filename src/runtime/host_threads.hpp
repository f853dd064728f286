// The host's OpenMP workers, released before the device's turn. After a parallel loop, libgomp's idle
// workers spin (about 300,000 pause instructions, several ms) before they sleep. On the H200 machine
// (16 cores) that spin took the cores NVIDIA's OpenCL driver needs to complete the next blocking read:
// an AMG update of poisson3d:128 right after Matrix::update_values' parallel scatter took 9.5-12 ms,
// its first blocking read (a 30 us kernel's) alone 3-6 ms against 0.2 ms without the spin, and the
// whole update 6.1-6.6 ms with OMP_WAIT_POLICY=passive (docs/performance-amg-host.md). PoCL's worker
// threads compete with the spin the same way on a CPU. A host loop that hands over to the device
// therefore ends with release_host_threads().
#pragma once

namespace clkr::detail {

// Ends the calling thread's idle OpenMP workers (omp_pause_resource_all, soft: the settings stay, the
// next parallel loop starts new workers). On the 16-core H200 machine the release took 0.2-0.7 ms and
// the next loop's start 0.4 ms, so loops too small to gain that much stay on one thread. A no-op
// inside a parallel region, without OpenMP, and where the runtime has no workers running.
void release_host_threads();

// The threads a parallel loop of the host gets (omp_get_max_threads; 1 without OpenMP).
int host_thread_count();

}  // namespace clkr::detail
