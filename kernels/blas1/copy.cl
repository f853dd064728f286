// COPY, y = x, as a kernel: on CPUs (the chunked split) every core copies its own chunk, where the
// OpenCL runtime's clEnqueueCopyBuffer may copy on one thread (PoCL: about a fifth of the rate of
// the kernels). GPUs copy with clEnqueueCopyBuffer (src/blas/blas.cpp).
#include "common.cl"
#include "blas1/blas1.cl"

#define COPY_STEP(F, i) F##_STORE(y, i, F##_LOAD(x, i))
__kernel void copy(const ulong n, const ulong chunk, CVEC_ARG(x), VEC_ARG(y)) { ELEMENTWISE_LOOP(n, chunk, COPY_STEP); }
