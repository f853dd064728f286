// The coarse levels of an AMG cycle in one launch: every step the V-cycle would launch as a kernel of
// its own on those levels (smoothing steps, residuals, restrictions, prolongations, the coarsest level's
// dense inverse) runs here in turn, the work-groups meeting at a grid barrier between steps
// (runtime/grid_barrier.cl). On a GPU the coarse levels are small (poisson3d:128's levels below the
// finest: 44,490, 2,467 and 120 rows), so each launch costs more in its start and the gap before the
// next than in its bytes; a grid barrier costs a few microseconds.
//
// The steps are data: `ops` holds OP_INTS ints a step (this launch runs nops of them from op_start) (src/precond/amg/coarse_cycle.cpp writes them
// from the smoothers' schedules, relaxation.hpp), `coef` its coefficients. Every level's operators are
// CSR, concatenated: a step's matrix starts at row_offsets[row_base] and its entries at cols[nnz_base],
// vals[nnz_base] (the row offsets count from the matrix's own first entry). Its vectors are offsets
// into `arena`, or REF_B / REF_X: the first coarse level's right-hand side and solution, which the
// V-cycle's launches on the finer levels write and read.
//
// Rows are dealt out in blocks of ROWS_PER_BLOCK = WG / LANES (block k to group k mod groups), LANES
// work-items a row in the SpMV steps and one in the elementwise steps, so a group writes the same rows
// of a vector in every step. Vectors written in the launch are read through VEC_LOAD_SHARED (another
// group may have written them, and NVIDIA's L1 is not coherent); the matrices are read-only.
//
// An aborted launch (a barrier timed out: the groups were not all resident) leaves NaN in the rows of
// the first level's solution that each leaving group owns, and so does every later launch that finds the
// status aborted: the cycle's result is then NaN, which a solver reports, never a wrong correction.
// The arrival counter is not reset between launches: a launch's barriers wait for arrivals_base +
// groups, + 2 groups, ..., and the host advances arrivals_base by (nops - 1) x groups a launch (and
// zeroes the counter before it could overflow), which saves a fill command a launch.
// nops < 0 is a residency probe: one grid barrier (each group polling at most -nops times), nothing
// read or written but the state.
//
// Build options besides the precision: -DWG (a power of two), -DLANES (a power of two dividing WG),
// -DSPIN_LIMIT.
#include "solver/group_reduce.cl"
#ifndef LANES
#define LANES 1
#endif
#define ROWS_PER_BLOCK (WG / LANES)
#include "runtime/grid_barrier.cl"  // after ROWS_PER_BLOCK: owned_row deals rows by it

// A step: OP_INTS ints.
#define OP_INTS 12
#define OP_KIND 0
#define OP_ROWS 1      // rows of the vectors it writes
#define OP_ROW_BASE 2  // its matrix (SpMV steps)
#define OP_NNZ_BASE 3
#define OP_X 4      // the SpMV's input, or the elementwise step's
#define OP_Y 5      // the main output
#define OP_B 6      // b (residual), r_in (Chebyshev step), d_prev (node-block correction)
#define OP_DINV 7   // 1 / diag
#define OP_D 8      // the correction written (Chebyshev start, first, step)
#define OP_R 9      // the residual a Chebyshev step keeps
#define OP_COEF 10  // c1 = coef[i], c2 = coef[i + 1]
#define OP_FLAGS 11
#define FLAG_LAST 1        // a sweep's last Chebyshev step (or a node-block correction): r and d are not written
#define FLAG_ACCUMULATE 2  // an SpMV step adds into y
#define FLAG_SET 4         // a node-block correction sets y = d instead of adding it
#define FLAG_PREV 8        // a node-block correction adds c1 d_prev

// The kinds (relaxation.hpp's RelaxStep, and the cycle's own): y, x, ... are the operands above.
#define K_COPY 0        // y = x
#define K_SCALE 1       // y = c2 * dinv .* x
#define K_ADD_SCALED 2  // y += c2 * dinv .* x
#define K_CHEB_START 3  // d = c2 * dinv .* x;  y = d
#define K_CHEB_FIRST 4  // d = c2 * dinv .* x;  y += d
#define K_RESIDUAL 5    // y = b - A x
#define K_CHEB_STEP 6   // r' = b - A x;  d = c1 x + c2 dinv .* r';  y += d;  r = r' (unless FLAG_LAST)
#define K_SPMV 7        // y = A x (+ y with FLAG_ACCUMULATE)
// With node blocks (AmgOptions::block_smoothing) the matrix is B^-1, the inverse of the level's node
// blocks, in place of dinv .*; a Chebyshev step is then a K_RESIDUAL and this:
#define K_BLOCK 8  // d = c2 B x (+ c1 d_prev with FLAG_PREV);  y = d (FLAG_SET) or y += d

#define REF_B (-1)
#define REF_X (-2)
#define LOAD(ref, i)                                   \
  ((ref) == REF_B   ? VEC_LOAD_SHARED(b_in, (i))       \
   : (ref) == REF_X ? VEC_LOAD_SHARED(x_out, (i))      \
                    : VEC_LOAD_SHARED(arena, (ref) + (i)))
#define STORE(ref, i, v)                      \
  do {                                        \
    if ((ref) == REF_X)                       \
      VEC_STORE(x_out, (i), (v));             \
    else                                      \
      VEC_STORE(arena, (ref) + (i), (v));     \
  } while (0)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void amg_coarse_cycle(
    __global const int* ops, const int op_start, const int nops, __global const int* row_offsets, __global const int* cols,
    CVEC_ARG(vals), CVEC_ARG(coef), VEC_ARG(arena), CVEC_ARG(b_in), VEC_ARG(x_out), const int first_rows,
    volatile __global int* state, const int arrivals_base) {
  __local real scratch[WG];
  __local int verdict;
  const int lid = (int)get_local_id(0);
  const int group = (int)get_group_id(0), groups = (int)get_num_groups(0);
  const int lane = lid % LANES;
  if (nops < 0) {
    if (grid_barrier(state, groups, -nops, &verdict) && group == 0 && lid == 0) state[STATE_STATUS] = STATUS_REACHED;
    return;
  }
  int arrivals = arrivals_base;
  bool aborted = state[STATE_STATUS] == STATUS_ABORTED;
  for (int s = 0; s < nops && !aborted; ++s) {
    __global const int* op = ops + (op_start + s) * OP_INTS;
    const int kind = op[OP_KIND], n = op[OP_ROWS];
    const int x = op[OP_X], y = op[OP_Y], b = op[OP_B], dinv = op[OP_DINV], d = op[OP_D], r = op[OP_R];
    const real c1 = VEC_LOAD(coef, op[OP_COEF]), c2 = VEC_LOAD(coef, op[OP_COEF] + 1);
    const int flags = op[OP_FLAGS];
    if (kind < K_RESIDUAL) {  // elementwise: a work-item a row
      for (int j = lid;; j += WG) {
        const int i = owned_row(j, group, groups);
        if (i >= n) break;
        const real xi = LOAD(x, i);
        if (kind == K_COPY) {
          STORE(y, i, xi);
          continue;
        }
        const real step = R_MUL(c2, R_MUL(LOAD(dinv, i), xi));
        if (kind == K_SCALE) {
          STORE(y, i, step);
        } else if (kind == K_ADD_SCALED) {
          STORE(y, i, R_ADD(LOAD(y, i), step));
        } else {
          STORE(d, i, step);
          STORE(y, i, kind == K_CHEB_START ? step : R_ADD(LOAD(y, i), step));
        }
      }
    } else {  // an SpMV: LANES work-items a row, summed in local memory
      const int row_base = op[OP_ROW_BASE], nnz_base = op[OP_NNZ_BASE];
      for (int block = group; block * ROWS_PER_BLOCK < n; block += groups) {
        const int row = block * ROWS_PER_BLOCK + lid / LANES;
        real sum = R_ZERO;
        if (row < n) {
          // Four chains: four gathers of x in flight at once (each a trip to the L2, VEC_LOAD_SHARED
          // bypassing the L1), where one chain waits for every gather before the next.
          const int end = nnz_base + row_offsets[row_base + row + 1];
          int k = nnz_base + row_offsets[row_base + row] + lane;
          real s1 = R_ZERO, s2 = R_ZERO, s3 = R_ZERO;
          for (; k + 3 * LANES < end; k += 4 * LANES) {
            const int j0 = cols[k], j1 = cols[k + LANES], j2 = cols[k + 2 * LANES], j3 = cols[k + 3 * LANES];
            const real x0 = LOAD(x, j0), x1 = LOAD(x, j1), x2 = LOAD(x, j2), x3 = LOAD(x, j3);
            sum = R_MAD(VEC_LOAD(vals, k), x0, sum);
            s1 = R_MAD(VEC_LOAD(vals, k + LANES), x1, s1);
            s2 = R_MAD(VEC_LOAD(vals, k + 2 * LANES), x2, s2);
            s3 = R_MAD(VEC_LOAD(vals, k + 3 * LANES), x3, s3);
          }
          for (; k < end; k += LANES) sum = R_MAD(VEC_LOAD(vals, k), LOAD(x, cols[k]), sum);
          sum = R_ADD(R_ADD(sum, s1), R_ADD(s2, s3));
        }
        sum = row_lanes_sum(sum, scratch);
        if (lane != 0 || row >= n) continue;
        if (kind == K_RESIDUAL) {
          STORE(y, row, R_SUB(LOAD(b, row), sum));
        } else if (kind == K_SPMV) {
          STORE(y, row, (flags & FLAG_ACCUMULATE) ? R_ADD(LOAD(y, row), sum) : sum);
        } else if (kind == K_BLOCK) {  // as spmv_epilogue.cl's correction epilogue
          const real scaled = R_MUL(c2, sum);
          const real di = (flags & FLAG_PREV) ? R_MAD(c1, LOAD(b, row), scaled) : scaled;
          if (!(flags & FLAG_LAST)) STORE(d, row, di);
          STORE(y, row, (flags & FLAG_SET) ? di : R_ADD(LOAD(y, row), di));
        } else {  // K_CHEB_STEP, as spmv_epilogue.cl's SPMV_CHEBYSHEV
          const real ri = R_SUB(LOAD(b, row), sum);
          const real di = R_MAD(c1, LOAD(x, row), R_MUL(c2, R_MUL(LOAD(dinv, row), ri)));
          if (!(flags & FLAG_LAST)) {
            STORE(r, row, ri);
            STORE(d, row, di);
          }
          STORE(y, row, R_ADD(LOAD(y, row), di));
        }
      }
    }
    if (s + 1 < nops) {
      arrivals += groups;
      aborted = !grid_barrier(state, arrivals, SPIN_LIMIT, &verdict);
    }
  }
  if (!aborted) return;
  // The rows this group would have written last: NaN (the header says why).
  for (int j = lid;; j += WG) {
    const int i = owned_row(j, group, groups);
    if (i >= first_rows) break;
#if defined(CLKR_QDOUBLE)
    VEC_STORE(x_out, i, ((float2)(NAN, NAN)));
#else
    VEC_STORE(x_out, i, (real)NAN);
#endif
  }
}
