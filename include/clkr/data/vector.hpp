// clkr::Vector: one logical vector of length n with up to six physical copies, {host, device} x
// {single, quasi-double, double}, created, converted and transferred lazily (CUKr's CUKR_VECTOR).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clkr/data/precision.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr {

// Counts of the work Vector did to make copies valid (tests and benchmarks read them).
struct VectorTraffic {
  std::size_t host_to_device = 0;
  std::size_t device_to_host = 0;
  std::size_t device_conversions = 0;  // precision conversions run as kernels on the device
  std::size_t host_conversions = 0;    // precision conversions on the host
};

class Vector {
 public:
  // A vector of n zeros (no memory is touched until a copy is required).
  Vector(std::shared_ptr<Context> context, std::size_t n, std::string name = "vector");
  Vector(std::shared_ptr<Context> context, const std::vector<double>& values, std::string name = "vector");
  Vector(std::shared_ptr<Context> context, const std::vector<float>& values, std::string name = "vector");

  Vector(Vector&&) noexcept;
  Vector& operator=(Vector&&) noexcept;
  Vector(const Vector&) = delete;  // copies are explicit: clone()
  Vector& operator=(const Vector&) = delete;
  ~Vector();

  // A deep copy holding the same valid copies.
  Vector clone(const std::string& name = "") const;

  std::size_t size() const;
  const std::string& name() const;
  const std::shared_ptr<Context>& context() const;

  // The values as doubles, from the most precise valid copy.
  std::vector<double> to_host() const;
  // Overwrites every element (host double becomes the only valid copy).
  void assign(const std::vector<double>& values);
  void assign(const std::vector<float>& values);
  // Sets every element to `value` on the device in `precision` (that copy becomes the only valid one).
  void fill(double value, Precision precision = Precision::Double);

  // ---- low-level access, for the BLAS level and solvers' fused kernels --------------------------
  // The device copy in precision p, made valid first unless `access` is Write; Write/ReadWrite
  // invalidate every other copy. In quasi-double `tail` is the second array; the single copy *is*
  // the quasi-double head, so a valid quasi-double copy is also a valid single copy.
  struct DeviceBuffers {
    cl::Buffer primary;  // float (single, qd head) or double
    cl::Buffer tail;     // quasi-double tail, else null
  };
  DeviceBuffers device(Precision p, Access access);
  // For a kernel that writes the device double copy and, in the same pass, the same values rounded to
  // single (a mixed-precision solver storing the copy its single-precision preconditioner reads): the
  // device single copy, marked valid beside the double one. Call it right after device(Double, Write or
  // ReadWrite), before anything else touches the vector; the kernel must store float(value) there.
  cl::Buffer device_single_alongside_double();

  // Host copies: one pointer per precision; valid until the next access of another copy.
  double* host_double(Access access);
  float* host_single(Access access);
  struct HostQuasiDouble {
    float* head;
    float* tail;
  };
  HostQuasiDouble host_quasi_double(Access access);

  bool is_valid(Location location, Precision precision) const;
  // True when no copy exists yet and the vector is logically zero.
  bool is_lazy_zero() const;
  const VectorTraffic& traffic() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clkr
