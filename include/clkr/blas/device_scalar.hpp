// A scalar result (a dot product, a norm) living in a device buffer in the precision that produced
// it, so solvers can keep scalars on the device; value() reads it back (blocking) when asked.
#pragma once

#include <memory>

#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr {

class DeviceScalar {
 public:
  DeviceScalar() = default;
  // `buffer` holds one float, one (head, tail) float pair, or one double; for the host backend
  // the value is already known and no buffer is involved.
  DeviceScalar(std::shared_ptr<Context> context, cl::Buffer buffer, Precision precision);
  static DeviceScalar from_host(double value);

  double value() const;
  const cl::Buffer& buffer() const { return buffer_; }
  Precision precision() const { return precision_; }

 private:
  std::shared_ptr<Context> context_;
  cl::Buffer buffer_;
  Precision precision_ = Precision::Double;
  mutable bool known_ = false;
  mutable double value_ = 0;
};

}  // namespace clkr
