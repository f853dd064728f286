// Grid barriers for kernels whose work-groups run a sequence of steps together in one launch
// (solver/cg_persistent.cl, precond/coarse_cycle.cl): an atomic arrival counter in a state block the
// host zeroes before each launch. They need every work-group resident at once, which OpenCL does not
// promise, so every wait is bounded: a group that polls `spin_limit` times marks the launch aborted and
// every group leaves at its next barrier; the host probes how many groups run at once before it relies
// on a count (a launch whose groups meet at one barrier and do nothing else).
//
// Such a kernel deals its rows to the work-groups in blocks of ROWS_PER_BLOCK (block k to group
// k mod groups; the includer defines ROWS_PER_BLOCK first), so that a group writes the same rows of a
// vector in every step: owned_row below. -DSPIN_LIMIT: polls before a wait gives up.
#ifndef SPIN_LIMIT
#define SPIN_LIMIT (1 << 24)
#endif

// state[] (ints, shared with the host):
#define STATE_ARRIVALS 0  // grid-barrier arrivals in this launch (the host zeroes it before each launch)
#define STATE_DONE 1      // what the launch got done (cg_persistent: iterations)
#define STATE_STATUS 2    // one of:
#define STATUS_RUNNING 0
#define STATUS_REACHED 1    // the kernel's goal (cg_persistent: r'r <= stop_rr; a probe: all groups arrived)
#define STATUS_BREAKDOWN 2  // cg_persistent: p'q not positive and finite (x, r left as they were), r'r not finite, or (-DJACOBI) r'z not positive and finite
#define STATUS_ABORTED 3    // a grid barrier timed out: the work-groups were not all resident

// Waits until all work-groups have arrived `target / groups` times in this launch. False when the
// launch was aborted (this group timed out, or saw that another one had).
inline bool grid_barrier(volatile __global int* state, const int target, const int spin_limit, __local int* verdict) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);  // the group's writes become visible before its arrival does
    atomic_inc(&state[STATE_ARRIVALS]);
    int ok = 1;
    for (int polls = 0; state[STATE_ARRIVALS] < target; ++polls) {
      if (state[STATE_STATUS] == STATUS_ABORTED) {
        ok = 0;
        break;
      }
      if (polls == spin_limit) {
        atomic_xchg(&state[STATE_STATUS], STATUS_ABORTED);
        ok = 0;
        break;
      }
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    *verdict = ok;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  return *verdict != 0;
}

// The j-th row this group owns (rows ascend with j). Only where the includer dealt rows: this file built
// alone (`clkr devices` builds every file) has none.
#if defined(ROWS_PER_BLOCK)
inline int owned_row(const int j, const int group, const int groups) {
  return (group + (j / ROWS_PER_BLOCK) * groups) * ROWS_PER_BLOCK + j % ROWS_PER_BLOCK;
}
#endif
