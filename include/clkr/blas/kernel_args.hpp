// Sets an OpenCL kernel's arguments in order, in the forms kernels/common.cl expects for a precision:
// scalars as float, (head, tail) float2 or double (REAL_ARG), vectors as one buffer or quasi-double's
// head and tail buffers (VEC_ARG). Used by the BLAS kernels and by fused solver kernels.
#pragma once

#include <cstddef>

#include "clkr/data/precision.hpp"
#include "clkr/runtime/opencl.hpp"

namespace clkr {

class KernelArgs {
 public:
  KernelArgs(cl::Kernel& kernel, Precision p) : kernel_(kernel), precision_(p) {}

  // Any plain argument (an int, a cl::Buffer, ...).
  template <class T>
  KernelArgs& value(const T& v) {
    kernel_.setArg(index_++, v);
    return *this;
  }
  // A scalar in the precision: quasi-double passes (head, tail) with head = float(v).
  KernelArgs& real(double v) {
    switch (precision_) {
      case Precision::Single:
        return value(static_cast<cl_float>(v));
      case Precision::QuasiDouble: {
        cl_float2 pair;
        pair.s[0] = static_cast<float>(v);
        pair.s[1] = static_cast<float>(v - static_cast<double>(pair.s[0]));
        return value(pair);
      }
      case Precision::Double:
        break;
    }
    return value(static_cast<cl_double>(v));
  }
  // A device vector or value array (anything with `primary` and `tail` buffers: Vector::DeviceBuffers,
  // Matrix::Values): one buffer, or head and tail in quasi-double.
  template <class Buffers>
  KernelArgs& vector(const Buffers& b) {
    value(b.primary);
    if (precision_ == Precision::QuasiDouble) value(b.tail);
    return *this;
  }
  // A matrix's value array (Matrix::Values) for a kernel parameter MVAL_ARG (kernels/common.cl): as
  // vector() does, or binary16 values followed by their float unscale factor.
  template <class Values>
  KernelArgs& matrix_values(const Values& v) {
    if (v.storage == ValueStorage::Half) return value(v.primary).value(static_cast<cl_float>(v.unscale));
    return vector(v);
  }
  // `bytes` of local memory.
  KernelArgs& local(std::size_t bytes) {
    kernel_.setArg(index_++, cl::Local(bytes));
    return *this;
  }

 private:
  cl::Kernel& kernel_;
  Precision precision_;
  cl_uint index_ = 0;
};

}  // namespace clkr
