// Internal to src/data: precision conversions of arrays on the device (kernels/data/convert.cl) and
// on the host, and blocking transfers, shared by Vector and Matrix. Host and device conversions give
// the same bits (both round to nearest even).
#pragma once

#include <cstddef>

#include "clkr/runtime/context.hpp"

namespace clkr::detail {

// On the device, n elements (n == 0 does nothing). The kernels use doubles: they throw clkr::Error on
// a device without fp64, where callers convert on the host instead.
void device_split(Context& context, const cl::Buffer& d, const cl::Buffer& head, const cl::Buffer& tail, std::size_t n);
void device_narrow(Context& context, const cl::Buffer& d, const cl::Buffer& head, std::size_t n);
void device_merge(Context& context, const cl::Buffer& head, const cl::Buffer& tail, const cl::Buffer& d, std::size_t n);
void device_widen(Context& context, const cl::Buffer& head, const cl::Buffer& d, std::size_t n);
// out[i] = values[index[i]] (0 where index[i] < 0), n elements, in double.
void device_gather(Context& context, const cl::Buffer& values, const cl::Buffer& index, const cl::Buffer& out,
                   std::size_t n);

// The same on the host: split gives head = float(d), tail = float(d - head).
void host_split(const double* d, float* head, float* tail, std::size_t n);
void host_narrow(const double* d, float* head, std::size_t n);
void host_merge(const float* head, const float* tail, double* d, std::size_t n);
void host_widen(const float* head, double* d, std::size_t n);

// Blocking copies between a host array and the first n elements of a buffer, and a fill of them
// with one value (n == 0 does nothing: the buffer of an empty array is a placeholder).
template <class T>
void read_buffer(Context& context, const cl::Buffer& buffer, T* host, std::size_t n) {
  if (n > 0) context.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(T), host);
}
template <class T>
void write_buffer(Context& context, const cl::Buffer& buffer, const T* host, std::size_t n) {
  if (n > 0) context.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, n * sizeof(T), host);
}
template <class T>
void fill_buffer(Context& context, const cl::Buffer& buffer, T value, std::size_t n) {
  if (n > 0) context.queue().enqueueFillBuffer(buffer, value, 0, n * sizeof(T));
}

}  // namespace clkr::detail
