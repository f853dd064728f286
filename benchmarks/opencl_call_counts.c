/* Counts a process's OpenCL commands, by kind and by kernel, and prints them to stderr when it exits:
 * an LD_PRELOAD interposer around the ICD loader's entry points, for any program (clkr, its peers).
 *
 * It answers "what does this solve enqueue, and how often?" without a profiler. Run a solve at two
 * iteration counts and subtract: what grows with the iterations is the per-iteration work, the rest is
 * per solve. It found the fused CG's extra AXPY and fill every 32 iterations on 2026-12-08
 * (docs/performance.md, "The grouped solution's join inside the step kernel").
 *
 *   build: the clkr_opencl_call_counts target (benchmarks), or
 *          cc -O2 -shared -fPIC benchmarks/opencl_call_counts.c -o cl_counts.so -ldl -lOpenCL -lpthread
 *   use:   LD_PRELOAD=$PWD/cl_counts.so clkr solve M --tol 0 --maxit 500
 *
 * Only calls made through the loader's exported symbols are seen (not function pointers a program
 * asks the loader for itself). */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { LAUNCH, READ, WRITE, FILL, COPY, MAP, WAIT, FINISH, FLUSH, CREATE_BUFFER, SET_ARG, KINDS };
static const char* const kind_names[KINDS] = {"kernel launches", "reads", "writes", "fills", "copies", "maps",
                                              "event waits", "finishes", "flushes", "buffers created",
                                              "kernel arguments set"};
static long counts[KINDS];

#define MAX_KERNELS 256
static char kernel_names[MAX_KERNELS][96];
static long kernel_launches[MAX_KERNELS];
static int kernel_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void count(int kind) { __atomic_add_fetch(&counts[kind], 1, __ATOMIC_RELAXED); }

/* The loader's function of the same name. */
#define REAL(name)                                                                      \
  static __typeof__(name)* real_##name;                                                 \
  if (!real_##name) real_##name = (__typeof__(name)*)dlsym(RTLD_NEXT, #name)

static void count_kernel(cl_kernel kernel) {
  char name[96] = {0};
  if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS)
    strcpy(name, "(unnamed)");
  pthread_mutex_lock(&lock);
  int i = 0;
  while (i < kernel_count && strcmp(kernel_names[i], name) != 0) ++i;
  if (i == kernel_count && kernel_count < MAX_KERNELS) strcpy(kernel_names[kernel_count++], name);
  if (i < MAX_KERNELS) ++kernel_launches[i];
  pthread_mutex_unlock(&lock);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                              const size_t* global, const size_t* local, cl_uint waits, const cl_event* wait_list,
                              cl_event* event) {
  REAL(clEnqueueNDRangeKernel);
  count(LAUNCH);
  count_kernel(kernel);
  return real_clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, waits, wait_list, event);
}

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void* host, cl_uint waits, const cl_event* wait_list, cl_event* event) {
  REAL(clEnqueueReadBuffer);
  count(READ);
  return real_clEnqueueReadBuffer(queue, buffer, blocking, offset, size, host, waits, wait_list, event);
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                            const void* host, cl_uint waits, const cl_event* wait_list, cl_event* event) {
  REAL(clEnqueueWriteBuffer);
  count(WRITE);
  return real_clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, host, waits, wait_list, event);
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern, size_t pattern_size,
                           size_t offset, size_t size, cl_uint waits, const cl_event* wait_list, cl_event* event) {
  REAL(clEnqueueFillBuffer);
  count(FILL);
  return real_clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, size, waits, wait_list, event);
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem from, cl_mem to, size_t from_offset, size_t to_offset,
                           size_t size, cl_uint waits, const cl_event* wait_list, cl_event* event) {
  REAL(clEnqueueCopyBuffer);
  count(COPY);
  return real_clEnqueueCopyBuffer(queue, from, to, from_offset, to_offset, size, waits, wait_list, event);
}

void* clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
                         size_t size, cl_uint waits, const cl_event* wait_list, cl_event* event, cl_int* error) {
  REAL(clEnqueueMapBuffer);
  count(MAP);
  return real_clEnqueueMapBuffer(queue, buffer, blocking, flags, offset, size, waits, wait_list, event, error);
}

cl_int clWaitForEvents(cl_uint n, const cl_event* events) {
  REAL(clWaitForEvents);
  count(WAIT);
  return real_clWaitForEvents(n, events);
}

cl_int clFinish(cl_command_queue queue) {
  REAL(clFinish);
  count(FINISH);
  return real_clFinish(queue);
}

cl_int clFlush(cl_command_queue queue) {
  REAL(clFlush);
  count(FLUSH);
  return real_clFlush(queue);
}

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host, cl_int* error) {
  REAL(clCreateBuffer);
  count(CREATE_BUFFER);
  return real_clCreateBuffer(context, flags, size, host, error);
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
  REAL(clSetKernelArg);
  count(SET_ARG);
  return real_clSetKernelArg(kernel, index, size, value);
}

/* Printed where the process prints nothing else: after main returns. A process that ran no OpenCL
 * (a child such as gzip) prints nothing. */
__attribute__((destructor)) static void report(void) {
  long total = 0;
  for (int k = 0; k < KINDS; ++k) total += counts[k];
  if (total == 0) return;
  for (int k = 0; k < KINDS; ++k) fprintf(stderr, "opencl_call_counts: %-20s %ld\n", kind_names[k], counts[k]);
  for (int i = 0; i < kernel_count; ++i)
    fprintf(stderr, "opencl_call_counts: kernel %-32s %ld\n", kernel_names[i], kernel_launches[i]);
}
