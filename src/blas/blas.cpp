// clkr::Blas: checks operands, brings them to the Blas's location and precision, runs the BLAS1
// kernels (kernels/blas1/*.cl), the host reference (blas1_host.cpp) or SpMV (spmv.cpp, spmv_host.cpp), and keeps
// per-operation counters (op_counter_book.hpp).
#include "clkr/blas/blas.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>
#include <vector>

#include "../runtime/integer_math.hpp"
#include "blas1_host.hpp"
#include "clkr/runtime/error.hpp"
#include "op_counter_book.hpp"
#include "spmv.hpp"

namespace clkr {
namespace {

using detail::ceil_div;
using detail::round_up;

// Work per vector element: flops, and elements moved between memory and the processor (reads plus
// writes). Bytes are elements times the precision's element size.
struct Blas1Cost {
  double flops;
  double elements;
};
constexpr Blas1Cost kAxpyCost{2, 3};  // read x and y, write y
constexpr Blas1Cost kAypxCost{2, 3};
constexpr Blas1Cost kScalCost{1, 2};  // read and write x
constexpr Blas1Cost kCopyCost{0, 2};  // read x, write y
constexpr Blas1Cost kDotCost{2, 2};   // read x and y
constexpr Blas1Cost kNrm2Cost{2, 1};  // read x

// How a launch covers n elements: NDRange sizes, and the elements per work-item of the chunked
// variant (0 for grid-stride).
struct Split {
  std::size_t global = 0;
  std::size_t local = 1;
  cl_ulong chunk = 0;
  std::size_t groups() const { return global / local; }
};

}  // namespace

struct Blas::Impl {
  struct BuiltKernel {
    cl::Kernel kernel;
    std::size_t max_local = 1;  // CL_KERNEL_WORK_GROUP_SIZE
  };

  std::shared_ptr<Context> context;
  Location location;
  Precision precision;
  BlasOptions options;
  DeviceParams params;
  std::string build_options;
  std::map<std::string, BuiltKernel> kernels;  // by kernel name, built on first use
  cl::Buffer partials;                         // dot_partial's output, reused (the queue is in order)
  std::size_t partial_capacity = 0;
  cl::Buffer blocking_result_buffer;  // blocking_result()
  detail::OpCounterBook counters;

  Impl(std::shared_ptr<Context> c, Location l, Precision p, BlasOptions o)
      : context(std::move(c)), location(l), precision(p), options(std::move(o)) {
    if (!context) throw Error("Blas: the context is null");
    const DeviceInfo& info = context->info();
    if (location == Location::Device && precision == Precision::Double && !info.fp64)
      throw Error("Blas: double precision on the device needs fp64, which " + info.summary() +
                  " lacks; use Precision::QuasiDouble, or Location::Host");
    if (options.matrix_values == ValueStorage::Half && precision != Precision::Single)
      throw Error("Blas: half-precision matrix values (BlasOptions::matrix_values) are read in single precision, not " +
                  to_string(precision));
    params = options.params ? *options.params : device_params(info, context->program_cache().directory());
    validate_device_params(params);
    // dot_partial's work-group (blas1's when chunked, the reduction's when grid-stride) and
    // dot_final's (the reduction's) keep one `real` per work-item in local memory.
    auto check_local_memory = [&](std::size_t size, const char* name) {
      const std::size_t bytes = size * bytes_per_element(precision);
      if (bytes > info.local_memory)
        throw Error("Blas: " + std::string(name) + " = " + std::to_string(size) + " needs " + std::to_string(bytes) +
                    " bytes of local memory; " + info.name + " has " + std::to_string(info.local_memory));
    };
    if (location == Location::Device) {
      check_local_memory(params.reduction.work_group_size, "reduction.work_group_size");
      if (chunked()) check_local_memory(params.blas1.work_group_size, "blas1.work_group_size");
    }
    build_options = precision_build_option(precision);
    if (params.blas1.variant == Blas1Variant::Chunked)
      build_options += " -DCLKR_CHUNKED -DCLKR_VW=" + std::to_string(params.blas1.vector_width);
    else
      build_options += " -DCLKR_GRID_STRIDE";
  }

  bool chunked() const { return params.blas1.variant == Blas1Variant::Chunked; }

  // ---- operand checks ------------------------------------------------------------------------------
  void check_context(const char* op, const std::shared_ptr<Context>& owner, const std::string& what) const {
    if (owner != context)
      throw Error(std::string("Blas::") + op + ": " + what + " belongs to another Context than this Blas (" +
                  context->info().name + "); move data between contexts through the host");
  }
  void check_vector(const char* op, const Vector& v) const {
    check_context(op, v.context(), "vector '" + v.name() + "'");
  }
  void check_pair(const char* op, const Vector& x, const Vector& y) const {
    check_vector(op, x);
    check_vector(op, y);
    if (x.size() != y.size())
      throw Error(std::string("Blas::") + op + ": sizes differ: x = '" + x.name() + "' has " +
                  std::to_string(x.size()) + " elements, y = '" + y.name() + "' has " + std::to_string(y.size()));
  }

  // ---- counters ----------------------------------------------------------------------------------------
  OpCounters& count(const std::string& op, double flops, double bytes) { return counters.count(op, flops, bytes); }
  double blas1_bytes(Blas1Cost cost, std::size_t n) const {
    return cost.elements * static_cast<double>(n) * static_cast<double>(bytes_per_element(precision));
  }
  template <class Body>
  void run_host(const std::string& op, double flops, double bytes, Body&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    count(op, flops, bytes).seconds += elapsed.count();
  }
  void record_device(const std::string& op, double flops, double bytes, std::vector<cl::Event> events) {
    counters.count_device(op, flops, bytes, std::move(events), context->profiling());
  }

  // ---- device launches -------------------------------------------------------------------------------
  BuiltKernel& kernel(const std::string& file, const std::string& name) {
    auto it = kernels.find(name);
    if (it == kernels.end()) {
      BuiltKernel k;
      k.kernel = context->kernel(file, name, build_options);
      k.max_local = k.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context->device());
      it = kernels.emplace(name, std::move(k)).first;
    }
    return it->second;
  }

  // A work-group size no larger than the kernel allows, kept a multiple of the device's preferred
  // multiple when it has to shrink.
  std::size_t local_size(std::size_t wanted, const BuiltKernel& k) const {
    if (wanted <= k.max_local) return wanted;
    const std::size_t multiple = std::max<std::size_t>(context->info().preferred_work_group_multiple, 1);
    return k.max_local >= multiple ? k.max_local / multiple * multiple : k.max_local;
  }

  // The launch covering n > 0 elements: chunked, one chunk (a multiple of the vector width) per
  // work-item and `work_items_per_compute_unit` work-items per compute unit; grid-stride, up to
  // `groups_per_cu` groups of `group_size` per compute unit, never more groups than there is work.
  Split split(std::size_t n, std::size_t group_size, std::size_t groups_per_cu, const BuiltKernel& k) const {
    const std::size_t units = std::max<std::size_t>(context->info().compute_units, 1);
    Split s;
    if (chunked()) {
      const std::size_t items = units * params.blas1.work_items_per_compute_unit;
      const std::size_t chunk = round_up(ceil_div(n, items), params.blas1.vector_width);
      const std::size_t used = ceil_div(n, chunk);
      s.local = std::min(local_size(params.blas1.work_group_size, k), used);
      s.global = round_up(used, s.local);
      s.chunk = chunk;
    } else {
      s.local = local_size(group_size, k);
      s.global = std::min(units * groups_per_cu, ceil_div(n, s.local)) * s.local;
    }
    return s;
  }

  cl::Event enqueue(const BuiltKernel& k, const Split& s) {
    cl::Event e;
    context->queue().enqueueNDRangeKernel(k.kernel, cl::NullRange, cl::NDRange(s.global), cl::NDRange(s.local), nullptr,
                                          &e);
    return e;
  }

  void set_vector(cl::Kernel& k, cl_uint& arg, const Vector::DeviceBuffers& b) const {
    k.setArg(arg++, b.primary);
    if (precision == Precision::QuasiDouble) k.setArg(arg++, b.tail);
  }
  // Scalars in the kernel's `real`: float, (head, tail) float2, or double.
  void set_scalar(cl::Kernel& k, cl_uint& arg, double a) const {
    switch (precision) {
      case Precision::Single:
        k.setArg(arg++, static_cast<cl_float>(a));
        break;
      case Precision::QuasiDouble: {
        const detail::Qd q = detail::qd_from_double(a);
        k.setArg(arg++, cl_float2{{q.hi, q.lo}});
        break;
      }
      case Precision::Double:
        k.setArg(arg++, static_cast<cl_double>(a));
        break;
    }
  }

  // AXPY, AYPX (x and y) and SCAL (y only): kernel(n, chunk, a, [x,] y).
  std::vector<cl::Event> elementwise(const char* file, const char* name, double a, Vector* x, Vector& y) {
    Vector::DeviceBuffers xb;
    if (x) xb = x->device(precision, Access::Read);
    const Vector::DeviceBuffers yb = y.device(precision, Access::ReadWrite);
    const std::size_t n = y.size();
    if (n == 0) return {};
    BuiltKernel& k = kernel(file, name);
    const Split s = split(n, params.blas1.work_group_size, params.blas1.groups_per_compute_unit, k);
    cl_uint arg = 0;
    k.kernel.setArg(arg++, static_cast<cl_ulong>(n));
    k.kernel.setArg(arg++, s.chunk);
    set_scalar(k.kernel, arg, a);
    if (x) set_vector(k.kernel, arg, xb);
    set_vector(k.kernel, arg, yb);
    return {enqueue(k, s)};
  }

  // x'y into `result` (a new one-element buffer when it is null): dot_partial leaves one sum per
  // work-group in `partials`, dot_final adds those in a single work-group.
  DeviceScalar dot_device(Vector& x, Vector& y, std::vector<cl::Event>& events, cl::Buffer result) {
    const Vector::DeviceBuffers xb = x.device(precision, Access::Read);
    const Vector::DeviceBuffers yb = &x == &y ? xb : y.device(precision, Access::Read);
    const std::size_t element = bytes_per_element(precision);
    if (result() == nullptr) result = context->allocate(element, "dot result");
    const std::size_t n = x.size();
    std::size_t count = 0;
    if (n > 0) {
      BuiltKernel& k = kernel("blas1/dot.cl", "dot_partial");
      const Split s = split(n, params.reduction.work_group_size, params.reduction.groups_per_compute_unit, k);
      count = s.groups();
      reserve_partials(count);
      cl_uint arg = 0;
      k.kernel.setArg(arg++, static_cast<cl_ulong>(n));
      k.kernel.setArg(arg++, s.chunk);
      set_vector(k.kernel, arg, xb);
      set_vector(k.kernel, arg, yb);
      k.kernel.setArg(arg++, partials);
      k.kernel.setArg(arg++, cl::Local(s.local * element));
      events.push_back(enqueue(k, s));
    }
    reserve_partials(1);
    BuiltKernel& f = kernel("blas1/dot.cl", "dot_final");
    Split s;
    s.local = local_size(params.reduction.work_group_size, f);
    s.global = s.local;
    f.kernel.setArg(0, static_cast<cl_uint>(count));
    f.kernel.setArg(1, partials);
    f.kernel.setArg(2, result);
    f.kernel.setArg(3, cl::Local(s.local * element));
    events.push_back(enqueue(f, s));
    return DeviceScalar(context, result, precision);
  }

  // The result of a blocking dot or nrm2: read back before the call returns, so one kept buffer serves
  // them all (a Blas is used by one thread at a time). A fresh buffer per call cost about 14 us a dot on
  // an H200 (the unfused CG, two blocking dots an iteration: 209 -> 181 us an iteration;
  // docs/performance-amg-host.md). Null on the host, which reduces there.
  cl::Buffer blocking_result() {
    if (location == Location::Host) return {};
    if (blocking_result_buffer() == nullptr)
      blocking_result_buffer = context->allocate(bytes_per_element(precision), "blocking dot result");
    return blocking_result_buffer;
  }

  void reserve_partials(std::size_t count) {
    if (count <= partial_capacity) return;
    partials = context->allocate(count * bytes_per_element(precision), "dot partial sums");
    partial_capacity = count;
  }

  DeviceScalar dot(const char* op, Vector& x, Vector& y, Blas1Cost cost, const cl::Buffer& result = cl::Buffer()) {
    check_pair(op, x, y);
    const std::size_t n = x.size();
    const double flops = cost.flops * static_cast<double>(n);
    if (location == Location::Host) {
      double value = 0;
      run_host(op, flops, blas1_bytes(cost, n), [&] { value = detail::dot_host(precision, x, y); });
      return DeviceScalar::from_host(value);
    }
    std::vector<cl::Event> events;
    DeviceScalar value = dot_device(x, y, events, result);
    record_device(op, flops, blas1_bytes(cost, n), std::move(events));
    return value;
  }
};

Blas::Blas(std::shared_ptr<Context> context, Location location, Precision precision, BlasOptions options)
    : impl_(translate_cl_errors("Blas::Blas", [&] {
        return std::make_unique<Impl>(std::move(context), location, precision, std::move(options));
      })) {}

Blas::~Blas() = default;
Blas::Blas(Blas&&) noexcept = default;
Blas& Blas::operator=(Blas&&) noexcept = default;

Location Blas::location() const { return impl_->location; }
Precision Blas::precision() const { return impl_->precision; }
const std::shared_ptr<Context>& Blas::context() const { return impl_->context; }
const DeviceParams& Blas::params() const { return impl_->params; }
const BlasOptions& Blas::options() const { return impl_->options; }

void Blas::axpy(double a, Vector& x, Vector& y) {
  translate_cl_errors("Blas::axpy", [&] {
    Impl& d = *impl_;
    d.check_pair("axpy", x, y);
    const std::size_t n = y.size();
    const double flops = kAxpyCost.flops * static_cast<double>(n), bytes = d.blas1_bytes(kAxpyCost, n);
    if (d.location == Location::Host)
      d.run_host("axpy", flops, bytes, [&] { detail::axpy_host(d.precision, a, x, y); });
    else
      d.record_device("axpy", flops, bytes, d.elementwise("blas1/axpy.cl", "axpy", a, &x, y));
  });
}

void Blas::aypx(double a, Vector& x, Vector& y) {
  translate_cl_errors("Blas::aypx", [&] {
    Impl& d = *impl_;
    d.check_pair("aypx", x, y);
    const std::size_t n = y.size();
    const double flops = kAypxCost.flops * static_cast<double>(n), bytes = d.blas1_bytes(kAypxCost, n);
    if (d.location == Location::Host)
      d.run_host("aypx", flops, bytes, [&] { detail::aypx_host(d.precision, a, x, y); });
    else
      d.record_device("aypx", flops, bytes, d.elementwise("blas1/aypx.cl", "aypx", a, &x, y));
  });
}

void Blas::scal(double a, Vector& x) {
  translate_cl_errors("Blas::scal", [&] {
    Impl& d = *impl_;
    d.check_vector("scal", x);
    const std::size_t n = x.size();
    const double flops = kScalCost.flops * static_cast<double>(n), bytes = d.blas1_bytes(kScalCost, n);
    if (d.location == Location::Host)
      d.run_host("scal", flops, bytes, [&] { detail::scal_host(d.precision, a, x); });
    else
      d.record_device("scal", flops, bytes, d.elementwise("blas1/scal.cl", "scal", a, nullptr, x));
  });
}

void Blas::copy(Vector& x, Vector& y) {
  translate_cl_errors("Blas::copy", [&] {
    Impl& d = *impl_;
    d.check_pair("copy", x, y);
    const std::size_t n = y.size();
    const double bytes = d.blas1_bytes(kCopyCost, n);
    if (&x == &y) {  // nothing to move
      d.count("copy", 0, 0);
      return;
    }
    if (d.location == Location::Host) {
      d.run_host("copy", 0, bytes, [&] { detail::copy_host(d.precision, x, y); });
      return;
    }
    const Vector::DeviceBuffers xb = x.device(d.precision, Access::Read);
    const Vector::DeviceBuffers yb = y.device(d.precision, Access::Write);
    if (d.chunked() && n > 0) {
      // CPUs: a kernel, every core copying its chunk (kernels/blas1/copy.cl says why).
      Impl::BuiltKernel& k = d.kernel("blas1/copy.cl", "copy");
      const Split s = d.split(n, d.params.blas1.work_group_size, d.params.blas1.groups_per_compute_unit, k);
      cl_uint arg = 0;
      k.kernel.setArg(arg++, static_cast<cl_ulong>(n));
      k.kernel.setArg(arg++, s.chunk);
      d.set_vector(k.kernel, arg, xb);
      d.set_vector(k.kernel, arg, yb);
      d.record_device("copy", 0, bytes, {d.enqueue(k, s)});
      return;
    }
    std::vector<cl::Event> events;
    if (n > 0) {
      // Single and double: one array; quasi-double: the head (4-byte) and tail arrays.
      const std::size_t array_bytes = n * (d.precision == Precision::Double ? 8 : 4);
      auto& queue = d.context->queue();
      events.emplace_back();
      queue.enqueueCopyBuffer(xb.primary, yb.primary, 0, 0, array_bytes, nullptr, &events.back());
      if (d.precision == Precision::QuasiDouble) {
        events.emplace_back();
        queue.enqueueCopyBuffer(xb.tail, yb.tail, 0, 0, array_bytes, nullptr, &events.back());
      }
    }
    d.record_device("copy", 0, bytes, std::move(events));
  });
}

DeviceScalar Blas::dot_async(Vector& x, Vector& y) {
  return translate_cl_errors("Blas::dot", [&] { return impl_->dot("dot", x, y, kDotCost); });
}

DeviceScalar Blas::dot_async(Vector& x, Vector& y, const cl::Buffer& result) {
  return translate_cl_errors("Blas::dot", [&] { return impl_->dot("dot", x, y, kDotCost, result); });
}

double Blas::dot(Vector& x, Vector& y) {
  return translate_cl_errors("Blas::dot",
                             [&] { return impl_->dot("dot", x, y, kDotCost, impl_->blocking_result()).value(); });
}

double Blas::nrm2(Vector& x) {
  // sqrt of the device's sum of squares, taken in double on the host; max() because a quasi-double
  // head + tail of a tiny sum can round to a negative double. When the squares overflowed or
  // underflowed in the precision's range (|x_i| above ~1e154 or below ~1e-154 in double, ~1e19 and
  // ~1e-19 with float arithmetic), the norm is taken again, scaled, from the values read back: a rare
  // path, one transfer of x.
  return translate_cl_errors("Blas::nrm2", [&] {
    const double squares = impl_->dot("nrm2", x, x, kNrm2Cost, impl_->blocking_result()).value();
    if (detail::sum_of_squares_is_safe(precision(), squares)) return std::sqrt(squares);
    return detail::scaled_nrm2(x.to_host());
  });
}

void Blas::spmv(double alpha, Matrix& A, Vector& x, double beta, Vector& y) { spmv(alpha, A, x, beta, y, "spmv"); }

void Blas::spmv(double alpha, Matrix& A, Vector& x, double beta, Vector& y, const std::string& op) {
  translate_cl_errors("Blas::spmv", [&] {
    Impl& d = *impl_;
    d.check_context("spmv", A.context(), "the matrix");
    d.check_vector("spmv", x);
    d.check_vector("spmv", y);
    if (static_cast<std::size_t>(A.cols()) != x.size() || static_cast<std::size_t>(A.rows()) != y.size())
      throw Error("Blas::spmv: sizes do not match: A is " + std::to_string(A.rows()) + " x " +
                  std::to_string(A.cols()) + ", x = '" + x.name() + "' has " + std::to_string(x.size()) +
                  " elements (needs " + std::to_string(A.cols()) + "), y = '" + y.name() + "' has " +
                  std::to_string(y.size()) + " (needs " + std::to_string(A.rows()) + ")");
    if (&x == &y)
      throw Error("Blas::spmv: x and y are the same vector '" + x.name() + "'; y = A*x cannot be computed in place");
    if (d.location == Location::Host) {
      const detail::OpCost cost = detail::spmv_cost(A, d.precision, beta);
      d.run_host(op, cost.flops, cost.bytes,
                 [&] { detail::spmv_host(d.precision, d.options.kahan_spmv, alpha, A, x, beta, y); });
      return;
    }
    const detail::OpCost cost = detail::spmv_cost(A, d.precision, beta, A.value_storage(d.options.matrix_values));
    cl::Event first;
    cl::Event last = detail::spmv_device(*d.context, d.params.spmv, d.precision, d.options.kahan_spmv, alpha, A, x,
                                         beta, y, &first, nullptr, d.options.matrix_values);
    std::vector<cl::Event> events;
    if (first() != nullptr) events.push_back(first);
    if (last() != nullptr) events.push_back(last);
    d.record_device(op, cost.flops, cost.bytes, std::move(events));
  });
}

cl::Kernel& Blas::elementwise_kernel(const std::string& file, const std::string& name) {
  if (impl_->location != Location::Device) throw Error("Blas::elementwise_kernel: a host Blas runs no kernels");
  return translate_cl_errors("Blas::elementwise_kernel",
                             [&]() -> cl::Kernel& { return impl_->kernel(file, name).kernel; });
}

void Blas::launch_elementwise(const std::string& op, cl::Kernel& kernel, std::size_t n, double flops, double bytes) {
  translate_cl_errors("Blas::launch_elementwise", [&] {
    Impl& d = *impl_;
    if (n == 0) {
      d.count(op, flops, bytes);
      return;
    }
    // The cache entry that holds this kernel, for its work-group limit.
    const Impl::BuiltKernel* built = nullptr;
    for (const auto& [name, k] : d.kernels)
      if (k.kernel() == kernel()) built = &k;
    if (!built) throw Error("Blas::launch_elementwise: the kernel was not made by this Blas's elementwise_kernel");
    const Split s = d.split(n, d.params.blas1.work_group_size, d.params.blas1.groups_per_compute_unit, *built);
    kernel.setArg(0, static_cast<cl_ulong>(n));
    kernel.setArg(1, s.chunk);
    d.record_device(op, flops, bytes, {d.enqueue(*built, s)});
  });
}

void Blas::record(const std::string& op, double flops, double bytes, std::vector<cl::Event> events) {
  translate_cl_errors("Blas::record", [&] { impl_->record_device(op, flops, bytes, std::move(events)); });
}

void Blas::record_host(const std::string& op, double flops, double bytes, double seconds) {
  impl_->count(op, flops, bytes).seconds += seconds;
}

const std::map<std::string, OpCounters>& Blas::counters() const {
  return translate_cl_errors("Blas::counters (reading profiling events)",
                             [&]() -> const std::map<std::string, OpCounters>& { return impl_->counters.settled(); });
}

void Blas::reset_counters() { impl_->counters.clear(); }

void Blas::report(std::ostream& out) const {
  const auto& all = counters();
  out << "BLAS on " << to_string(impl_->location) << " (" << impl_->context->info().name << "), "
      << to_string(impl_->precision) << ", parameters " << impl_->params.source << "\n";
  detail::write_counter_table(out, all);
}

}  // namespace clkr
