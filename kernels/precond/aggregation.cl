// Parallel, deterministic aggregation of the strength graph S on the device (Bell, Dalton and Olson,
// "Exposing fine-grained parallelism in algebraic multigrid methods", SISC 2012): the aggregates'
// roots are a distance-k maximal independent set of S (k = 2; 4 on aggressive levels), every node next
// to a root joins it, and the remaining nodes (up to k steps from a root) join the aggregate of their
// most strongly connected aggregated neighbour, a step further out per pass. One work-item per node;
// S comes as CSR (neighbours ascending, weights).
//
// The independent set, Luby-style in rounds: a node's tuple is (state, priority, index) packed into a
// ulong, state ROOT > UNDECIDED > OUT, the priority a hash of the index (no random state: the same
// set on every run and device). Per round, mis_spread_state and k - 1 launches of mis_spread take the
// maximum tuple over each node's neighbourhood k times (its distance-k neighbourhood), and mis_decide
// makes an undecided node a root when that maximum is its own tuple (no root and no undecided node of
// higher priority within distance k), or OUT when it is a root's. Nodes without strong neighbours start OUT and are
// left out of every aggregate (-1), as on the host.
#include "common.cl"

#define STATE_OUT 0
#define STATE_UNDECIDED 1
#define STATE_ROOT 2
#define FREE (-2)
#define LEFT_OUT (-1)

// A 31-bit hash of the node index (Thomas Wang's integer mix): the node's priority.
inline ulong priority(const int i) {
  uint h = (uint)i;
  h = (h ^ 61u) ^ (h >> 16);
  h *= 9u;
  h ^= h >> 4;
  h *= 0x27d4eb2du;
  h ^= h >> 15;
  return (ulong)(h & 0x7fffffffu);
}

inline ulong node_tuple(const int state, const int i) {
  return ((ulong)state << 62) | (priority(i) << 31) | (ulong)i;
}

__kernel void mis_init(const int rows, __global const int* s_offsets, __global int* state) {
  const int i = (int)get_global_id(0);
  if (i < rows) state[i] = s_offsets[i + 1] > s_offsets[i] ? STATE_UNDECIDED : STATE_OUT;
}

// best[i] = the largest tuple of i and its neighbours.
__kernel void mis_spread_state(const int rows, __global const int* s_offsets, __global const int* s_neighbours,
                               __global const int* state, __global ulong* best) {
  const int i = (int)get_global_id(0);
  if (i >= rows) return;
  ulong m = node_tuple(state[i], i);
  for (int k = s_offsets[i]; k < s_offsets[i + 1]; ++k) {
    const int j = s_neighbours[k];
    m = max(m, node_tuple(state[j], j));
  }
  best[i] = m;
}

// out[i] = the largest of in[i] and in[j] over i's neighbours j.
__kernel void mis_spread(const int rows, __global const int* s_offsets, __global const int* s_neighbours,
                         __global const ulong* in, __global ulong* out) {
  const int i = (int)get_global_id(0);
  if (i >= rows) return;
  ulong m = in[i];
  for (int k = s_offsets[i]; k < s_offsets[i + 1]; ++k) m = max(m, in[s_neighbours[k]]);
  out[i] = m;
}

// *undecided counts the nodes still undecided after this round.
__kernel void mis_decide(const int rows, __global const ulong* best, __global int* state, __global int* undecided) {
  const int i = (int)get_global_id(0);
  if (i >= rows || state[i] != STATE_UNDECIDED) return;
  const ulong m = best[i];
  if ((int)(m & 0x7fffffffu) == i) {
    state[i] = STATE_ROOT;
  } else if ((int)(m >> 62) == STATE_ROOT) {
    state[i] = STATE_OUT;
  } else {
    atomic_inc(undecided);
  }
}

__kernel void aggregate_root_flags(const int rows, __global const int* state, __global int* flags) {
  const int i = (int)get_global_id(0);
  if (i < rows) flags[i] = state[i] == STATE_ROOT;
}

// Pass 1: roots take their number (root_numbers: the prefix sums of the root flags), their neighbours
// join the most strongly connected root among theirs (the first in neighbour order on a tie, as the
// host's pass 2 chooses); the rest stay FREE, or LEFT_OUT without strong neighbours.
__kernel void aggregate_join_roots(const int rows, __global const int* s_offsets, __global const int* s_neighbours,
                                   __global const double* s_weights, __global const int* state,
                                   __global const int* root_numbers, __global int* aggregate) {
  const int i = (int)get_global_id(0);
  if (i >= rows) return;
  if (state[i] == STATE_ROOT) {
    aggregate[i] = root_numbers[i];
    return;
  }
  int chosen = s_offsets[i] == s_offsets[i + 1] ? LEFT_OUT : FREE;
  double strongest = -1.0;
  for (int k = s_offsets[i]; k < s_offsets[i + 1]; ++k) {
    const int j = s_neighbours[k];
    if (state[j] == STATE_ROOT && s_weights[k] > strongest) {
      strongest = s_weights[k];
      chosen = root_numbers[j];
    }
  }
  aggregate[i] = chosen;
}

// Pass 2: a FREE node joins the aggregate of its most strongly connected neighbour that `before`
// (the previous pass's assignment, so that joins do not chain within a pass) has aggregated;
// *still_free counts the FREE nodes that found none.
__kernel void aggregate_join_neighbours(const int rows, __global const int* s_offsets,
                                        __global const int* s_neighbours, __global const double* s_weights,
                                        __global const int* before, __global int* aggregate,
                                        __global int* still_free) {
  const int i = (int)get_global_id(0);
  if (i >= rows) return;
  int chosen = before[i];
  if (chosen == FREE) {
    double strongest = -1.0;
    for (int k = s_offsets[i]; k < s_offsets[i + 1]; ++k) {
      const int a = before[s_neighbours[k]];
      if (a >= 0 && s_weights[k] > strongest) {
        strongest = s_weights[k];
        chosen = a;
      }
    }
    if (chosen == FREE) atomic_inc(still_free);
  }
  aggregate[i] = chosen;
}
