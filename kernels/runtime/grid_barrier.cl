// Grid barriers for kernels whose work-groups run a sequence of steps together in one launch
// (solver/cg_persistent.cl, precond/coarse_cycle.cl): an atomic arrival counter in a state block the
// host zeroes before each launch. They need every work-group resident at once, which OpenCL does not
// promise, so every wait is bounded: a group that polls `spin_limit` times aborts the launch, and every
// group leaves at that barrier (grid_barrier below says how they agree); the host probes how many
// groups run at once before it relies on a count (a launch whose groups meet at one barrier and do
// nothing else).
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
// launch was aborted (this group timed out, or another one had). A spin limit of 0 aborts every launch
// at its first barrier, every group leaving there: the fallbacks' tests use it, since a limit of one poll
// no longer aborts for certain where the groups arrive close together (a GPU), the compare-and-swap
// below failing while arrivals go on.
//
// Every group passes a barrier or every group leaves at it, never some of each: a group that times out
// does not just mark the launch aborted, it poisons the arrival counter (sets its sign bit) with a
// compare-and-swap against the count it last saw below the target. Once the last group has arrived the
// swap fails and the group that timed out passes too; once the swap has succeeded, every arrival, past or
// still to come, reads a negative count and leaves. (A status flag alone raced: the last group could
// complete the count and pass just as a waiting group gave up, and then run the launch's last steps
// alone, leaving finite but wrong values where the leaving group wrote NaN; the host reads the status
// only after the launch.)
inline bool grid_barrier(volatile __global int* state, const int target, const int spin_limit, __local int* verdict) {
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (spin_limit == 0) {
    if (get_local_id(0) == 0) atomic_xchg(&state[STATE_STATUS], STATUS_ABORTED);
    return false;
  }
  if (get_local_id(0) == 0) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);  // the group's writes become visible before its arrival does
    atomic_inc(&state[STATE_ARRIVALS]);
    int ok = 1;
    int count;
    for (int polls = 0; (count = state[STATE_ARRIVALS]) < target; ++polls) {
      if (count < 0) {  // poisoned: another group gave up at this barrier or an earlier one
        ok = 0;
        break;
      }
      if (polls >= spin_limit && atomic_cmpxchg(&state[STATE_ARRIVALS], count, count | INT_MIN) == count) {
        atomic_xchg(&state[STATE_STATUS], STATUS_ABORTED);  // for the host, and the launches queued after
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
