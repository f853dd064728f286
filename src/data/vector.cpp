// clkr::Vector: up to six copies of one vector ({host, device} x {single, quasi-double, double}) made
// on demand, and the rules that keep them consistent.
//
// Storage per location: a double array, a float `head` array (the single copy, and the quasi-double
// head) and a float `tail` array (the quasi-double tail). Validity is tracked per (location,
// precision); because single and quasi-double share the head array, a valid quasi-double copy always
// comes with a valid single copy at the same location, and writing the single copy invalidates the
// quasi-double one (its tail no longer matches).
//
// Making a copy valid starts from the most precise valid copy (double > quasi-double > single), at
// the target location when it has one of that precision. Across locations, a conversion runs where
// the data is narrower, so that the transfer moves the fewest bytes: narrowing or equal-size
// conversions (double -> qd/single, qd -> double) run at the source (on the device as a kernel when
// the source is the device copy), then the result is transferred; widening a single copy transfers
// the single copy first, then converts at the destination. A device without fp64 has no device double
// copy, so there every conversion that involves a double runs on the host.
#include "clkr/data/vector.hpp"

#include <algorithm>
#include <utility>

#include "../runtime/large_vectors.hpp"
#include "clkr/runtime/error.hpp"
#include "convert.hpp"

namespace clkr {
namespace {

constexpr Precision kMostPreciseFirst[] = {Precision::Double, Precision::QuasiDouble, Precision::Single};

int slot(Location l) { return l == Location::Host ? 0 : 1; }
int slot(Precision p) { return static_cast<int>(p); }
Location other(Location l) { return l == Location::Host ? Location::Device : Location::Host; }

}  // namespace

struct Vector::Impl {
  std::shared_ptr<Context> context;
  std::size_t n = 0;
  std::string name;
  // Logically zero since construction (nothing written yet): a copy is made by zero-filling its
  // storage rather than by converting or transferring another copy.
  bool zero = true;
  bool valid[2][3] = {};  // [location][precision]
  std::vector<double> host_double;
  std::vector<float> host_head, host_tail;
  cl::Buffer device_double, device_head, device_tail;
  VectorTraffic traffic;

  bool& is(Location l, Precision p) { return valid[slot(l)][slot(p)]; }
  bool is(Location l, Precision p) const { return valid[slot(l)][slot(p)]; }

  bool any_valid() const {
    for (const auto& location : valid)
      for (bool v : location)
        if (v) return true;
    return false;
  }

  void set_valid(Location l, Precision p) {
    is(l, p) = true;
    if (p == Precision::QuasiDouble) is(l, Precision::Single) = true;
  }

  std::string copy_name(Location l, Precision p) const {
    return "vector '" + name + "' " + to_string(l) + " " + to_string(p) + " copy";
  }

  void ensure_storage(Location l, Precision p) {
    if (l == Location::Host) {
      if (p == Precision::Double) {
        detail::resize_large(host_double, n);
      } else {
        detail::resize_large(host_head, n);
        if (p == Precision::QuasiDouble) detail::resize_large(host_tail, n);
      }
      return;
    }
    auto make = [&](cl::Buffer& b, std::size_t element_bytes, const char* part) {
      if (!b()) b = context->allocate(n * element_bytes, copy_name(l, p) + part);
    };
    if (p == Precision::Double) {
      make(device_double, sizeof(double), "");
    } else {
      make(device_head, sizeof(float), p == Precision::QuasiDouble ? " (head)" : "");
      if (p == Precision::QuasiDouble) make(device_tail, sizeof(float), " (tail)");
    }
  }

  // The copy (l, p) made valid unless access is Write; Write and ReadWrite leave it the only valid one.
  void require(Location l, Precision p, Access access) {
    if (l == Location::Device && p == Precision::Double && !context->info().fp64)
      throw Error("device " + context->info().name + " has no fp64: vector '" + name +
                  "' cannot have a double device copy (use single or quasi-double there)");
    ensure_storage(l, p);
    if (access != Access::Write && !is(l, p)) make_valid(l, p);
    if (access != Access::Read) {
      for (auto& location : valid) std::fill(std::begin(location), std::end(location), false);
      set_valid(l, p);
      zero = false;
    }
  }

  void make_valid(Location l, Precision p) {
    if (zero) {
      zero_fill(l, p);
      set_valid(l, p);
      return;
    }
    for (Precision q : kMostPreciseFirst) {
      const Location from = is(l, q) ? l : other(l);
      if (!is(from, q)) continue;
      if (from == l) {
        convert(l, q, p);
      } else if (q == p) {
        transfer(l, p);
      } else if (bytes_per_element(p) <= bytes_per_element(q) &&
                 !(from == Location::Device && p == Precision::Double && !context->info().fp64)) {
        convert(from, q, p);
        transfer(l, p);
      } else {
        transfer(l, q);
        convert(l, q, p);
      }
      return;
    }
    throw Error("vector '" + name + "' has no valid copy to make its " + to_string(l) + " " + to_string(p) +
                " copy from (internal error)");
  }

  void zero_fill(Location l, Precision p) {
    if (l == Location::Host) {
      if (p == Precision::Double) {
        std::fill(host_double.begin(), host_double.end(), 0.0);
      } else {
        std::fill(host_head.begin(), host_head.end(), 0.0f);
        if (p == Precision::QuasiDouble) std::fill(host_tail.begin(), host_tail.end(), 0.0f);
      }
      return;
    }
    if (p == Precision::Double) {
      detail::fill_buffer(*context, device_double, 0.0, n);
    } else {
      detail::fill_buffer(*context, device_head, 0.0f, n);
      if (p == Precision::QuasiDouble) detail::fill_buffer(*context, device_tail, 0.0f, n);
    }
  }

  // Converts the valid copy (l, from) into (l, to) at the same location.
  void convert(Location l, Precision from, Precision to) {
    if (is(l, to)) return;  // single from quasi-double: the head is already the single copy
    ensure_storage(l, to);
    const bool widen = from == Precision::Single;
    if (l == Location::Device) {
      Context& c = *context;
      if (to == Precision::Single) {
        detail::device_narrow(c, device_double, device_head, n);
      } else if (to == Precision::QuasiDouble && widen) {
        detail::fill_buffer(c, device_tail, 0.0f, n);
      } else if (to == Precision::QuasiDouble) {
        detail::device_split(c, device_double, device_head, device_tail, n);
      } else if (widen) {
        detail::device_widen(c, device_head, device_double, n);
      } else {
        detail::device_merge(c, device_head, device_tail, device_double, n);
      }
      ++traffic.device_conversions;
    } else {
      if (to == Precision::Single) {
        detail::host_narrow(host_double.data(), host_head.data(), n);
      } else if (to == Precision::QuasiDouble && widen) {
        std::fill(host_tail.begin(), host_tail.end(), 0.0f);
      } else if (to == Precision::QuasiDouble) {
        detail::host_split(host_double.data(), host_head.data(), host_tail.data(), n);
      } else if (widen) {
        detail::host_widen(host_head.data(), host_double.data(), n);
      } else {
        detail::host_merge(host_head.data(), host_tail.data(), host_double.data(), n);
      }
      ++traffic.host_conversions;
    }
    set_valid(l, to);
  }

  // Copies the valid copy of precision p at the other location to location `to`.
  void transfer(Location to, Precision p) {
    ensure_storage(to, p);
    Context& c = *context;
    const bool up = to == Location::Device;
    auto move = [&](const cl::Buffer& buffer, auto* host) {
      if (up) {
        detail::write_buffer(c, buffer, host, n);
      } else {
        detail::read_buffer(c, buffer, host, n);
      }
    };
    if (p == Precision::Double) {
      move(device_double, host_double.data());
    } else {
      move(device_head, host_head.data());
      if (p == Precision::QuasiDouble) move(device_tail, host_tail.data());
    }
    ++(up ? traffic.host_to_device : traffic.device_to_host);
    set_valid(to, p);
  }

  std::vector<double> read_most_precise() {
    std::vector<double> out(n, 0.0);
    for (Precision q : kMostPreciseFirst) {
      for (Location l : {Location::Host, Location::Device}) {
        if (!is(l, q)) continue;
        if (l == Location::Host) {
          if (q == Precision::Double) out = host_double;
          if (q == Precision::QuasiDouble) detail::host_merge(host_head.data(), host_tail.data(), out.data(), n);
          if (q == Precision::Single) detail::host_widen(host_head.data(), out.data(), n);
        } else if (q == Precision::Double) {
          detail::read_buffer(*context, device_double, out.data(), n);
        } else {
          std::vector<float> head(n), tail(n, 0.0f);
          detail::read_buffer(*context, device_head, head.data(), n);
          if (q == Precision::QuasiDouble) detail::read_buffer(*context, device_tail, tail.data(), n);
          detail::host_merge(head.data(), tail.data(), out.data(), n);
        }
        return out;
      }
    }
    return out;  // no copy: logically zero
  }
};

namespace {

// A template so that the private Vector::Impl need not be named here.
template <class Impl>
Impl& checked(const std::unique_ptr<Impl>& impl) {
  if (!impl) throw Error("clkr::Vector used after it was moved from");
  return *impl;
}

std::shared_ptr<Context> checked(std::shared_ptr<Context> context) {
  if (!context) throw Error("clkr::Vector needs a Context (got a null shared_ptr)");
  return context;
}

}  // namespace

Vector::Vector(std::shared_ptr<Context> context, std::size_t n, std::string name) : impl_(std::make_unique<Impl>()) {
  impl_->context = checked(std::move(context));
  impl_->n = n;
  impl_->name = std::move(name);
}

Vector::Vector(std::shared_ptr<Context> context, const std::vector<double>& values, std::string name)
    : Vector(std::move(context), values.size(), std::move(name)) {
  assign(values);
}

Vector::Vector(std::shared_ptr<Context> context, const std::vector<float>& values, std::string name)
    : Vector(std::move(context), values.size(), std::move(name)) {
  assign(values);
}

Vector::Vector(Vector&&) noexcept = default;
Vector& Vector::operator=(Vector&&) noexcept = default;
Vector::~Vector() = default;

Vector Vector::clone(const std::string& name) const {
  const Impl& self = checked(impl_);
  Vector copy(self.context, self.n, name.empty() ? self.name : name);
  Impl& c = *copy.impl_;
  translate_cl_errors("Vector::clone", [&] {
    c.zero = self.zero;
    for (Location l : {Location::Host, Location::Device}) {
      for (Precision p : kMostPreciseFirst) {
        if (!self.is(l, p) || c.is(l, p)) continue;
        c.ensure_storage(l, p);
        if (l == Location::Host) {
          if (p == Precision::Double) c.host_double = self.host_double;
          if (p != Precision::Double) c.host_head = self.host_head;
          if (p == Precision::QuasiDouble) c.host_tail = self.host_tail;
        } else if (self.n > 0) {
          auto& queue = self.context->queue();
          if (p == Precision::Double) queue.enqueueCopyBuffer(self.device_double, c.device_double, 0, 0, self.n * 8);
          if (p != Precision::Double) queue.enqueueCopyBuffer(self.device_head, c.device_head, 0, 0, self.n * 4);
          if (p == Precision::QuasiDouble) queue.enqueueCopyBuffer(self.device_tail, c.device_tail, 0, 0, self.n * 4);
        }
        c.set_valid(l, p);
      }
    }
  });
  return copy;
}

std::size_t Vector::size() const { return checked(impl_).n; }
const std::string& Vector::name() const { return checked(impl_).name; }
const std::shared_ptr<Context>& Vector::context() const { return checked(impl_).context; }

std::vector<double> Vector::to_host() const {
  Impl& self = checked(impl_);
  return translate_cl_errors("Vector::to_host", [&] { return self.read_most_precise(); });
}

void Vector::assign(const std::vector<double>& values) {
  Impl& self = checked(impl_);
  if (values.size() != self.n)
    throw Error("Vector::assign: vector '" + self.name + "' has " + std::to_string(self.n) + " elements, got " +
                std::to_string(values.size()));
  self.require(Location::Host, Precision::Double, Access::Write);
  std::copy(values.begin(), values.end(), self.host_double.begin());
}

void Vector::assign(const std::vector<float>& values) {
  Impl& self = checked(impl_);
  if (values.size() != self.n)
    throw Error("Vector::assign: vector '" + self.name + "' has " + std::to_string(self.n) + " elements, got " +
                std::to_string(values.size()));
  self.require(Location::Host, Precision::Double, Access::Write);
  detail::host_widen(values.data(), self.host_double.data(), self.n);
}

void Vector::fill(double value, Precision precision) {
  Impl& self = checked(impl_);
  translate_cl_errors("Vector::fill", [&] {
    self.require(Location::Device, precision, Access::Write);
    Context& c = *self.context;
    const float head = static_cast<float>(value);
    if (precision == Precision::Double) {
      detail::fill_buffer(c, self.device_double, value, self.n);
    } else {
      detail::fill_buffer(c, self.device_head, head, self.n);
      if (precision == Precision::QuasiDouble)
        detail::fill_buffer(c, self.device_tail, static_cast<float>(value - static_cast<double>(head)), self.n);
    }
  });
}

Vector::DeviceBuffers Vector::device(Precision p, Access access) {
  Impl& self = checked(impl_);
  return translate_cl_errors("Vector::device", [&] {
    self.require(Location::Device, p, access);
    if (p == Precision::Double) return DeviceBuffers{self.device_double, cl::Buffer()};
    if (p == Precision::QuasiDouble) return DeviceBuffers{self.device_head, self.device_tail};
    return DeviceBuffers{self.device_head, cl::Buffer()};
  });
}

cl::Buffer Vector::device_single_alongside_double() {
  Impl& self = checked(impl_);
  int valid_copies = 0;
  for (const auto& location : self.valid)
    for (bool v : location) valid_copies += v;
  if (!self.is(Location::Device, Precision::Double) || valid_copies != 1)
    throw Error("vector '" + self.name +
                "': a single copy written alongside the double one needs the device double copy just taken for "
                "writing (internal error)");
  return translate_cl_errors("Vector::device_single_alongside_double", [&] {
    self.ensure_storage(Location::Device, Precision::Single);
    self.set_valid(Location::Device, Precision::Single);
    return self.device_head;
  });
}

double* Vector::host_double(Access access) {
  Impl& self = checked(impl_);
  translate_cl_errors("Vector::host_double", [&] { self.require(Location::Host, Precision::Double, access); });
  return self.host_double.data();
}

float* Vector::host_single(Access access) {
  Impl& self = checked(impl_);
  translate_cl_errors("Vector::host_single", [&] { self.require(Location::Host, Precision::Single, access); });
  return self.host_head.data();
}

Vector::HostQuasiDouble Vector::host_quasi_double(Access access) {
  Impl& self = checked(impl_);
  translate_cl_errors("Vector::host_quasi_double",
                      [&] { self.require(Location::Host, Precision::QuasiDouble, access); });
  return {self.host_head.data(), self.host_tail.data()};
}

bool Vector::is_valid(Location location, Precision precision) const { return checked(impl_).is(location, precision); }

bool Vector::is_lazy_zero() const {
  const Impl& self = checked(impl_);
  return self.zero && !self.any_valid();
}

const VectorTraffic& Vector::traffic() const { return checked(impl_).traffic; }

}  // namespace clkr
