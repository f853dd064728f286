// DeviceScalar: a reduction result left on the device, read back (once) when its value is asked for.
#include "clkr/blas/device_scalar.hpp"

#include <utility>

#include "clkr/runtime/error.hpp"

namespace clkr {

DeviceScalar::DeviceScalar(std::shared_ptr<Context> context, cl::Buffer buffer, Precision precision)
    : context_(std::move(context)), buffer_(std::move(buffer)), precision_(precision) {
  if (!context_ || buffer_() == nullptr) throw Error("DeviceScalar: needs a context and a buffer");
}

DeviceScalar DeviceScalar::from_host(double value) {
  DeviceScalar s;
  s.known_ = true;
  s.value_ = value;
  return s;
}

double DeviceScalar::value() const {
  if (known_) return value_;
  if (!context_) throw Error("DeviceScalar::value: the scalar holds no result (default-constructed)");
  translate_cl_errors("DeviceScalar::value (reading the result back)", [&] {
    auto& queue = context_->queue();
    switch (precision_) {
      case Precision::Single: {
        float v = 0;
        queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, sizeof v, &v);
        value_ = v;
        break;
      }
      case Precision::QuasiDouble: {
        float v[2] = {0, 0};  // (head, tail)
        queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, sizeof v, v);
        value_ = static_cast<double>(v[0]) + static_cast<double>(v[1]);
        break;
      }
      case Precision::Double:
        queue.enqueueReadBuffer(buffer_, CL_TRUE, 0, sizeof value_, &value_);
        break;
    }
  });
  known_ = true;
  return value_;
}

}  // namespace clkr
