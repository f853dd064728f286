// Micro-benchmark: K small kernel launches enqueued one by one against the same K recorded in a
// cl_khr_command_buffer and enqueued as one command, time per launch, on the first GPU (or CPU).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef void* cmdbuf_t;
typedef cmdbuf_t(CL_API_CALL* create_fn)(cl_uint, const cl_command_queue*, const cl_ulong*, cl_int*);
typedef cl_int(CL_API_CALL* finalize_fn)(cmdbuf_t);
typedef cl_int(CL_API_CALL* release_fn)(cmdbuf_t);
typedef cl_int(CL_API_CALL* enqueue_fn)(cl_uint, cl_command_queue*, cmdbuf_t, cl_uint, const cl_event*, cl_event*);
typedef cl_int(CL_API_CALL* ndrange_fn)(cmdbuf_t, cl_command_queue, const cl_ulong*, cl_kernel, cl_uint,
                                        const size_t*, const size_t*, const size_t*, cl_uint, const cl_uint*,
                                        cl_uint*, void*);

#define CHECK(x)                                                         \
  do {                                                                   \
    cl_int e_ = (x);                                                     \
    if (e_ != CL_SUCCESS) {                                              \
      std::printf("%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

static const char* source = R"(
__kernel void axpy(const int n, const float a, __global const float* x, __global float* y) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
})";

int main(int argc, char** argv) {
  const char* want = argc > 1 ? argv[1] : "NVIDIA";
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(0, nullptr, &np));
  std::vector<cl_platform_id> platforms(np);
  CHECK(clGetPlatformIDs(np, platforms.data(), nullptr));
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  for (auto p : platforms) {
    char name[256];
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::strstr(name, want) && clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS) {
      platform = p;
      break;
    }
  }
  if (!platform) {
    std::printf("no platform matching %s\n", want);
    return 1;
  }
  char dname[256];
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
  std::printf("device: %s\n", dname);
  size_t nv = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &nv) == CL_SUCCESS) {
    std::vector<cl_name_version> v(nv / sizeof(cl_name_version));
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, nv, v.data(), nullptr);
    for (auto& e : v)
      if (std::strstr(e.name, "command_buffer"))
        std::printf("extension %s version %u.%u.%u\n", e.name, CL_VERSION_MAJOR(e.version),
                    CL_VERSION_MINOR(e.version), CL_VERSION_PATCH(e.version));
  }
  cl_ulong caps = 0, req = 0;
  clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps, nullptr);
  clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR, sizeof req, &req, nullptr);
  std::printf("capabilities 0x%llx (simultaneous use %d), required queue properties 0x%llx\n",
              (unsigned long long)caps, (int)((caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR) != 0),
              (unsigned long long)req);
  auto create = (create_fn)clGetExtensionFunctionAddressForPlatform(platform, "clCreateCommandBufferKHR");
  auto finalize = (finalize_fn)clGetExtensionFunctionAddressForPlatform(platform, "clFinalizeCommandBufferKHR");
  auto release = (release_fn)clGetExtensionFunctionAddressForPlatform(platform, "clReleaseCommandBufferKHR");
  auto enqueue = (enqueue_fn)clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueCommandBufferKHR");
  auto ndrange = (ndrange_fn)clGetExtensionFunctionAddressForPlatform(platform, "clCommandNDRangeKernelKHR");
  if (!create || !finalize || !enqueue || !ndrange) {
    std::printf("functions missing\n");
    return 1;
  }
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  CHECK(err);
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)req, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, qp, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 1, &device, "", nullptr, nullptr));
  const int launches = 40, reps = 300;
  for (int n : {1024, 65536, 2097152}) {
    cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
    cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
    float zero = 0;
    CHECK(clEnqueueFillBuffer(q, x, &zero, 4, 0, n * 4, 0, nullptr, nullptr));
    CHECK(clEnqueueFillBuffer(q, y, &zero, 4, 0, n * 4, 0, nullptr, nullptr));
    std::vector<cl_kernel> kernels(launches);
    for (int k = 0; k < launches; ++k) {
      kernels[k] = clCreateKernel(prog, "axpy", &err);
      float a = 1.0f + k;
      CHECK(clSetKernelArg(kernels[k], 0, sizeof(int), &n));
      CHECK(clSetKernelArg(kernels[k], 1, sizeof(float), &a));
      CHECK(clSetKernelArg(kernels[k], 2, sizeof(cl_mem), k % 2 ? &y : &x));
      CHECK(clSetKernelArg(kernels[k], 3, sizeof(cl_mem), k % 2 ? &x : &y));
    }
    size_t local = 256, global = (n + 255) / 256 * 256;
    auto plain = [&](bool set_args) {
      for (int r = 0; r < reps; ++r)
        for (int k = 0; k < launches; ++k) {
          if (set_args) {
            float a = 1.0f + k;
            CHECK(clSetKernelArg(kernels[k], 0, sizeof(int), &n));
            CHECK(clSetKernelArg(kernels[k], 1, sizeof(float), &a));
            CHECK(clSetKernelArg(kernels[k], 2, sizeof(cl_mem), k % 2 ? &y : &x));
            CHECK(clSetKernelArg(kernels[k], 3, sizeof(cl_mem), k % 2 ? &x : &y));
          }
          CHECK(clEnqueueNDRangeKernel(q, kernels[k], 1, nullptr, &global, &local, 0, nullptr, nullptr));
        }
      CHECK(clFinish(q));
    };
    cl_ulong props[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                        (caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR) ? (cl_ulong)CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR
                                                                                  : (cl_ulong)0,
                        0};
    cmdbuf_t cb = create(1, &q, props, &err);
    CHECK(err);
    for (int k = 0; k < launches; ++k)
      CHECK(ndrange(cb, nullptr, nullptr, kernels[k], 1, nullptr, &global, &local, 0, nullptr, nullptr, nullptr));
    CHECK(finalize(cb));
    auto recorded = [&]() {
      for (int r = 0; r < reps; ++r) {
        cl_int e = enqueue(1, &q, cb, 0, nullptr, nullptr);
        if (e != CL_SUCCESS) {  // not simultaneous: wait for the previous one
          CHECK(clFinish(q));
          CHECK(enqueue(1, &q, cb, 0, nullptr, nullptr));
        }
      }
      CHECK(clFinish(q));
    };
    auto time = [&](auto f) {
      f();
      double best = 1e30;
      for (int t = 0; t < 3; ++t) {
        auto s = std::chrono::steady_clock::now();
        f();
        double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count();
        best = std::min(best, us / (reps * launches));
      }
      return best;
    };
    double t_plain = time([&] { plain(false); });
    double t_args = time([&] { plain(true); });
    double t_rec = time(recorded);
    // Enqueue-side cost only (no finish in the timed part): how fast the host can issue.
    auto s = std::chrono::steady_clock::now();
    for (int k = 0; k < launches; ++k)
      CHECK(clEnqueueNDRangeKernel(q, kernels[k], 1, nullptr, &global, &local, 0, nullptr, nullptr));
    double issue_plain =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count() / launches;
    CHECK(clFinish(q));
    s = std::chrono::steady_clock::now();
    CHECK(enqueue(1, &q, cb, 0, nullptr, nullptr));
    double issue_rec = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count();
    CHECK(clFinish(q));
    std::printf(
        "n %8d: per launch plain %.2f us, with args set %.2f us, recorded %.2f us; host issue: plain %.2f us a "
        "launch, one command buffer of %d %.2f us\n",
        n, t_plain, t_args, t_rec, issue_plain, launches, issue_rec);
    release(cb);
    for (auto k : kernels) clReleaseKernel(k);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
  }
  return 0;
}
