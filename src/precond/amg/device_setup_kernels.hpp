// Building and launching the kernels of the AMG setup on the device (kernels/precond/: scan, sort,
// transpose, sparse-product patterns, strength, aggregation, prolongators): double precision, the
// launch shape of DeviceParams::amg_setup passed to every kernel as -D options (WG, SMALL_ROW,
// HASH_CAPACITY, SORT_CAPACITY), clamped to what the device allows; and the shape of the products'
// numeric kernel (DeviceParams::galerkin, device_galerkin.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "clkr/blas/blas.hpp"
#include "clkr/blas/device_params.hpp"
#include "clkr/runtime/context.hpp"

namespace clkr::detail::amg {

// Sets a kernel's arguments in order.
template <class... Args>
void set_args(cl::Kernel& kernel, const Args&... args) {
  cl_uint index = 0;
  (kernel.setArg(index++, args), ...);
}

class SetupKernels {
 public:
  // With `timings`, every launch is recorded there under its kernel's name, timed by its profiling
  // event (Blas::record: the preconditioner's kernel table then shows the setup's kernels).
  SetupKernels(std::shared_ptr<Context> context, AmgSetupParams params, GalerkinParams galerkin,
               Blas* timings = nullptr);

  Context& context() const { return *context_; }
  const std::shared_ptr<Context>& shared_context() const { return context_; }
  const AmgSetupParams& params() const { return params_; }
  const GalerkinParams& galerkin() const { return galerkin_; }

  // Kernel `name` of kernels/precond/<file> built with this shape, created once per SetupKernels (a
  // launch takes its arguments when it is enqueued, so one object serves every launch; a hierarchy's
  // setup runs in one thread).
  cl::Kernel kernel(const std::string& file, const std::string& name) const;
  // One work-item per index in [0, n) (the kernels check n): global size n rounded up to whole groups.
  void per_item(cl::Kernel& kernel, std::size_t n) const;
  // One work-group per row in turn, work-groups striding over `rows` (kernels with a row loop).
  void per_group(cl::Kernel& kernel, std::size_t rows) const;
  // Any other shape (kernel() made `kernel`).
  void launch(cl::Kernel& kernel, std::size_t global, std::size_t local) const;
  // Records a kernel launched elsewhere (the products' galerkin_multiply) in the timings, if any.
  void record(const std::string& name, const cl::Event& event) const;

  // A device array of n elements of T (at least one, so that an empty array is a valid buffer).
  template <class T>
  cl::Buffer array(std::size_t n, const std::string& what) const {
    return context_->allocate((n > 0 ? n : 1) * sizeof(T), "amg setup: " + what);
  }
  // Element `index` of a device array (a blocking read).
  template <class T>
  T read(const cl::Buffer& buffer, std::size_t index) const {
    T value{};
    context_->queue().enqueueReadBuffer(buffer, CL_TRUE, index * sizeof(T), sizeof(T), &value);
    return value;
  }
  template <class T>
  void fill(const cl::Buffer& buffer, T value, std::size_t n) const {
    if (n > 0) context_->queue().enqueueFillBuffer(buffer, value, 0, n * sizeof(T));
  }

 private:
  std::shared_ptr<Context> context_;
  AmgSetupParams params_;
  GalerkinParams galerkin_;
  std::string options_;
  std::size_t groups_ = 1;
  mutable std::map<std::string, cl::Kernel> kernels_;
  mutable std::map<cl_kernel, std::string> names_;  // the kernels' names, for the timings
  Blas* timings_;
};

}  // namespace clkr::detail::amg
