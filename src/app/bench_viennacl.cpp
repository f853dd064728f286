// ViennaCL's OpenCL conjugate gradient as the peer of `clkr bench cg`, on the same device (see
// bench_peers.hpp).
#include <limits>
#include <map>
#include <mutex>

#include "app_common.hpp"
#include "bench_peers.hpp"
#include "cli_options.hpp"
#include "clkr/runtime/error.hpp"

#if CLKR_HAVE_VIENNACL
#include <viennacl/backend/memory.hpp>
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/hyb_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/ocl/backend.hpp>
#include <viennacl/vector.hpp>
#endif

namespace clkr::app {

#if CLKR_HAVE_VIENNACL

namespace {

// ViennaCL keeps its OpenCL contexts in a process-wide table: context 0 is set up once, on clkr's
// context and device with a queue of its own, so both libraries run on the very same device.
void use_device_of(Context& context) {
  static std::once_flag once;
  static cl_device_id device = nullptr;
  std::call_once(once, [&] {
    cl::CommandQueue queue(context.cl_context(), context.device());  // ViennaCL retains it
    viennacl::ocl::setup_context(0, context.cl_context()(), context.device()(), queue());
    viennacl::ocl::switch_context(0);
    device = context.device()();
  });
  if (device != context.device()()) throw Error("ViennaCL was already set up on another device in this process");
}

template <class T, class SparseMatrix>
class ViennaclCg : public CgRunner {
 public:
  ViennaclCg(const HostCsrMatrix& A, const std::vector<double>& b, int iterations, SparseMatrix matrix)
      : host_(A), b_(b), iterations_(iterations), matrix_(std::move(matrix)), rhs_(b.size()), x_(b.size()) {
    const std::vector<T> b_host(b.begin(), b.end());
    viennacl::copy(b_host.begin(), b_host.end(), rhs_.begin());
    warm_up();  // builds ViennaCL's kernels
  }

  void warm_up() override {
    // Tolerance 0: the iteration stops only at the iteration limit.
    x_ =
        viennacl::linalg::solve(matrix_, rhs_, viennacl::linalg::cg_tag(0.0, std::min(iterations_, kWarmUpIterations)));
    viennacl::backend::finish();
  }

  CgSample solve() override {
    viennacl::linalg::cg_tag tag(0.0, static_cast<unsigned>(iterations_));
    Stopwatch clock;
    x_ = viennacl::linalg::solve(matrix_, rhs_, tag);
    viennacl::backend::finish();
    CgSample s;
    s.seconds = clock.seconds();
    s.iterations = static_cast<int>(tag.iters());
    return s;
  }

  double true_relative_residual() override {
    std::vector<T> x(b_.size());
    viennacl::copy(x_.begin(), x_.end(), x.begin());
    return relative_residual(host_, b_, std::vector<double>(x.begin(), x.end()));
  }

  std::string description() const override {
    return "ViennaCL " + std::to_string(VIENNACL_MAJOR_VERSION) + "." + std::to_string(VIENNACL_MINOR_VERSION) + "." +
           std::to_string(VIENNACL_PATCH_VERSION) + " pipelined CG";
  }

 private:
  const HostCsrMatrix& host_;
  const std::vector<double>& b_;
  int iterations_;
  SparseMatrix matrix_;
  viennacl::vector<T> rhs_, x_;
};

template <class T>
std::unique_ptr<CgRunner> make_in(Context& context, const HostCsrMatrix& A, const std::vector<double>& b,
                                  int iterations, Format format) {
  use_device_of(context);
  if (std::is_same<T, double>::value && !viennacl::ocl::current_device().double_support()) {
    throw Unavailable("ViennaCL sees no double support on " + context.info().name);
  }
  const std::vector<T> values(A.values.begin(), A.values.end());
  if (format == Format::Csr) {
    viennacl::compressed_matrix<T> M;
    // ViennaCL's OpenCL CSR takes 32-bit unsigned indices through untyped pointers: clkr's column
    // indices (non-negative int32) as they are, its 64-bit row offsets narrowed.
    if (A.nnz() > std::numeric_limits<unsigned int>::max())
      throw Unavailable("ViennaCL's CSR holds at most 2^32 - 1 nonzeros");
    const std::vector<unsigned int> row_offsets(A.row_offsets.begin(), A.row_offsets.end());
    M.set(row_offsets.data(), A.col_indices.data(), values.data(), static_cast<viennacl::vcl_size_t>(A.rows),
          static_cast<viennacl::vcl_size_t>(A.cols), static_cast<viennacl::vcl_size_t>(A.nnz()));
    return std::make_unique<ViennaclCg<T, viennacl::compressed_matrix<T>>>(A, b, iterations, std::move(M));
  }
  // hyb_matrix is filled from the host through ViennaCL's std::vector<std::map> adapter.
  std::vector<std::map<unsigned int, T>> rows(static_cast<std::size_t>(A.rows));
  for (std::int32_t i = 0; i < A.rows; ++i) {
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      rows[i].emplace_hint(rows[i].end(), static_cast<unsigned>(A.col_indices[k]), values[k]);
    }
  }
  viennacl::hyb_matrix<T> M;
  viennacl::copy(rows, M);
  return std::make_unique<ViennaclCg<T, viennacl::hyb_matrix<T>>>(A, b, iterations, std::move(M));
}

}  // namespace

std::unique_ptr<CgRunner> make_viennacl_cg(Context& context, const HostCsrMatrix& A, const std::vector<double>& b,
                                           int iterations, Precision precision, Format format) {
  if (format != Format::Csr && format != Format::Hyb) {
    throw Unavailable("only CSR (compressed_matrix) and HYB (hyb_matrix) are benchmarked for ViennaCL");
  }
  if (precision == Precision::QuasiDouble) throw Unavailable("ViennaCL has no quasi-double");
  // Building ViennaCL's CG kernels aborts the whole process inside PoCL 5's compiler (an assertion in
  // its work-group generation, Kernel.cc:129, pocl/pocl#2281; Ubuntu 24.04's 5.0, 2026-12-07); clkr's
  // own kernels avoid the shape it trips on (docs/devices.md), ViennaCL's cannot be changed here.
  const DeviceInfo& info = context.info();
  if (info.platform_vendor.find("pocl") != std::string::npos && info.driver_version.rfind("5.", 0) == 0)
    throw Unavailable("ViennaCL's kernels abort PoCL " + info.driver_version +
                      "'s compiler (pocl/pocl#2281): the peer is left out on this driver");
  try {
    return precision == Precision::Single ? make_in<float>(context, A, b, iterations, format)
                                          : make_in<double>(context, A, b, iterations, format);
  } catch (const Unavailable&) {
    throw;
  } catch (const std::exception& e) {
    // ViennaCL reports OpenCL and kernel build failures as exception types of its own.
    throw Error("ViennaCL: " + one_line(e.what()));
  }
}

#else

std::unique_ptr<CgRunner> make_viennacl_cg(Context&, const HostCsrMatrix&, const std::vector<double>&, int, Precision,
                                           Format) {
  throw Unavailable("clkr was built without ViennaCL (install libviennacl-dev and re-run cmake)");
}

#endif

}  // namespace clkr::app
