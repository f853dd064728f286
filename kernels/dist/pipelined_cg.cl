// Pipelined CG (Ghysels and Vanroose 2014, Algorithm 3): every vector update of an iteration in one
// pass over memory, with the partial sums of the next iteration's dot products taken from the values
// just written. The host starts the next SpMV before it reads those sums, so the device is never idle
// while the ranks reduce them (src/dist/dist_cg.cpp).
//
//   preconditioned (M):           z = n + beta z     q = m + beta q     s = w + beta s     p = u + beta p
//                                 x = x + alpha p    r = r - alpha s    u = u - alpha q    w = w - alpha z
//                                 sums: r'r, r'u (gamma), w'u (delta)
//   without M (u = r, m = w, so q = s and the u update is the r update):
//                                 z = n + beta z     s = w + beta s     p = r + beta p
//                                 x = x + alpha p    r = r - alpha s    w = w - alpha z
//                                 sums: r'r (= gamma), w'r (delta)
//
// with n = A m, m = M^-1 w, u = M^-1 r and w = A u. The sums go to partials[k * groups + group] for
// sum k; pipelined_cg_sums adds them up. minus_alpha is -alpha, so that every update is one R_MAD.
#include "solver/group_reduce.cl"

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void pipelined_cg_update(
    const int n, const int chunk, REAL_ARG(beta), REAL_ARG(alpha), REAL_ARG(minus_alpha), CVEC_ARG(nv), VEC_ARG(z),
    VEC_ARG(s), VEC_ARG(p), VEC_ARG(x), VEC_ARG(r), VEC_ARG(w), VEC_ARG(partials), __local real* scratch) {
  real rr = R_ZERO, wr = R_ZERO;
  FOR_EACH_ELEMENT(i, n, chunk) {
    const real zi = R_MAD(beta, VEC_LOAD(z, i), VEC_LOAD(nv, i));
    const real wi_old = VEC_LOAD(w, i);
    const real si = R_MAD(beta, VEC_LOAD(s, i), wi_old);
    const real ri_old = VEC_LOAD(r, i);
    const real pi = R_MAD(beta, VEC_LOAD(p, i), ri_old);
    const real ri = R_MAD(minus_alpha, si, ri_old);
    const real wi = R_MAD(minus_alpha, zi, wi_old);
    VEC_STORE(z, i, zi);
    VEC_STORE(s, i, si);
    VEC_STORE(p, i, pi);
    VEC_STORE(x, i, R_MAD(alpha, pi, VEC_LOAD(x, i)));
    VEC_STORE(r, i, ri);
    VEC_STORE(w, i, wi);
    rr = R_MAD(ri, ri, rr);
    wr = R_MAD(wi, ri, wr);
  }
  const int groups = (int)get_num_groups(0), group = (int)get_group_id(0);
  rr = group_sum(rr, scratch);
  wr = group_sum(wr, scratch);
  if (get_local_id(0) == 0) {
    VEC_STORE(partials, group, rr);
    VEC_STORE(partials, groups + group, wr);
  }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void pipelined_cg_update_preconditioned(
    const int n, const int chunk, REAL_ARG(beta), REAL_ARG(alpha), REAL_ARG(minus_alpha), CVEC_ARG(nv), CVEC_ARG(m),
    VEC_ARG(z), VEC_ARG(q), VEC_ARG(s), VEC_ARG(p), VEC_ARG(x), VEC_ARG(r), VEC_ARG(u), VEC_ARG(w),
    VEC_ARG(partials), __local real* scratch) {
  real rr = R_ZERO, ru = R_ZERO, wu = R_ZERO;
  FOR_EACH_ELEMENT(i, n, chunk) {
    const real zi = R_MAD(beta, VEC_LOAD(z, i), VEC_LOAD(nv, i));
    const real qi = R_MAD(beta, VEC_LOAD(q, i), VEC_LOAD(m, i));
    const real wi_old = VEC_LOAD(w, i);
    const real si = R_MAD(beta, VEC_LOAD(s, i), wi_old);
    const real ui_old = VEC_LOAD(u, i);
    const real pi = R_MAD(beta, VEC_LOAD(p, i), ui_old);
    const real ri = R_MAD(minus_alpha, si, VEC_LOAD(r, i));
    const real ui = R_MAD(minus_alpha, qi, ui_old);
    const real wi = R_MAD(minus_alpha, zi, wi_old);
    VEC_STORE(z, i, zi);
    VEC_STORE(q, i, qi);
    VEC_STORE(s, i, si);
    VEC_STORE(p, i, pi);
    VEC_STORE(x, i, R_MAD(alpha, pi, VEC_LOAD(x, i)));
    VEC_STORE(r, i, ri);
    VEC_STORE(u, i, ui);
    VEC_STORE(w, i, wi);
    rr = R_MAD(ri, ri, rr);
    ru = R_MAD(ri, ui, ru);
    wu = R_MAD(wi, ui, wu);
  }
  const int groups = (int)get_num_groups(0), group = (int)get_group_id(0);
  rr = group_sum(rr, scratch);
  ru = group_sum(ru, scratch);
  wu = group_sum(wu, scratch);
  if (get_local_id(0) == 0) {
    VEC_STORE(partials, group, rr);
    VEC_STORE(partials, groups + group, ru);
    VEC_STORE(partials, 2 * groups + group, wu);
  }
}

// sums[k] = partials[k * groups .. (k + 1) * groups) added up, for k < count; one work-group.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void pipelined_cg_sums(const int count, const int groups,
                                                                                CVEC_ARG(partials), VEC_ARG(sums),
                                                                                __local real* scratch) {
  for (int k = 0; k < count; ++k) {
    const real total = sum_partials(k * groups, groups, VEC_PASS(partials), scratch);
    if (get_local_id(0) == 0) VEC_STORE(sums, k, total);
  }
}
