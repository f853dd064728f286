// The Jacobi preconditioner of PCG: z = D^-1 r as z[i] = inv_diag[i] * r[i], with inv_diag = 1 / a_ii
// computed once on the host in double and stored in the solve's precision (no division per apply).
#include "common.cl"

__kernel void jacobi_apply(const int n, CVEC_ARG(inv_diag), CVEC_ARG(r), VEC_ARG(z)) {
  const int i = get_global_id(0);
  if (i < n) VEC_STORE(z, i, R_MUL(VEC_LOAD(inv_diag, i), VEC_LOAD(r, i)));
}
