// What a command costs on NVIDIA's OpenCL when it comes with an allocation, a kernel creation or neither.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
int main() {
  std::vector<cl::Platform> ps; cl::Platform::get(&ps);
  cl::Device dev; for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ALL)}) { for (auto& p : ps) { std::vector<cl::Device> ds; try { p.getDevices(type, &ds); } catch (...) {} if (!ds.empty()) { dev = ds[0]; break; } } if (dev()) break; }
  std::printf("%s\n", dev.getInfo<CL_DEVICE_NAME>().c_str());
  cl::Context ctx(dev); cl::CommandQueue q(ctx, dev);
  const char* src = "__kernel void w(__global float* a, int n){ int i = get_global_id(0); if (i < n) a[i] = i; }";
  cl::Program prog(ctx, src); prog.build();
  cl::Kernel k(prog, "w");
  auto run = [&](const char* name, int reps, size_t n, int mode) {
    cl::Buffer keep(ctx, CL_MEM_READ_WRITE, n * 4);
    q.finish();
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
      cl::Kernel kk = mode == 2 ? cl::Kernel(prog, "w") : k;
      cl::Buffer b = mode == 1 ? cl::Buffer(ctx, CL_MEM_READ_WRITE, n * 4) : keep;
      kk.setArg(0, b); kk.setArg(1, (int)n);
      q.enqueueNDRangeKernel(kk, cl::NullRange, cl::NDRange((n + 255) / 256 * 256), cl::NDRange(256));
    }
    q.finish();
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
    std::printf("%-44s n=%9zu  %8.2f us per command\n", name, n, us);
  };
  for (int round = 0; round < 2; ++round)
    for (size_t n : {size_t(1), size_t(4096), size_t(2u << 20)}) {
      const int reps = n > 100000 ? 200 : 2000;
      run("kernel, persistent buffer", reps, n, 0);
      run("kernel, fresh buffer each (released after)", reps, n, 1);
      run("kernel object created each", reps, n, 2);
    }
  // Waits: a finish after every command.
  auto t0 = std::chrono::steady_clock::now();
  cl::Buffer b(ctx, CL_MEM_READ_WRITE, 4);
  k.setArg(0, b); k.setArg(1, 1);
  for (int r = 0; r < 2000; ++r) { q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(256), cl::NDRange(256)); q.finish(); }
  std::printf("kernel + finish: %.2f us\n", std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 2000);
  float x;
  t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < 2000; ++r) { q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(256), cl::NDRange(256)); q.enqueueReadBuffer(b, CL_TRUE, 0, 4, &x); }
  std::printf("kernel + blocking 4-byte read: %.2f us\n", std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 2000);
}
