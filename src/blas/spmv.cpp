// SpMV y = alpha*A*x + beta*y for every storage format on the device: the work it counts, and the
// choice and launch of the kernels of kernels/spmv/ (the host reference is spmv_host.cpp).
#include "spmv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "../runtime/integer_math.hpp"
#include "../runtime/text.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "csr_balanced.hpp"

namespace clkr::detail {
namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<std::int32_t>::max();

// ---- work counted ------------------------------------------------------------------------------------

struct StoredEntries {
  double entries = 0;         // value slots the kernels read, padding included
  double column_indices = 0;  // their column indices read: one per entry, none in DIA
  double other_ints = 0;      // row offsets (rows + 1 per CSR-like part), SELL's row order and slice
                              // offsets, DIA's diagonal offsets
};

StoredEntries stored_entries(const Matrix& A) {
  const double rows = A.rows();
  // A matrix not yet on the device (MatrixOptions::defer_upload) is read by the host backend from its
  // host CSR: counted as that, without building the device format for the count.
  if (!A.uploaded()) {
    const auto nnz = static_cast<double>(A.nnz());
    return {nnz, nnz, rows + 1};
  }
  switch (A.format()) {
    case Format::Csr:
    case Format::Csr4: {
      const auto stored = static_cast<double>(A.csr_part().stored);
      return {stored, stored, (rows + 1) * (A.csr_part().wide_offsets ? 2 : 1)};  // in 4-byte words
    }
    case Format::Ell: {
      // The pitch's padding rows are never touched, a row's padding columns are.
      const double stored = static_cast<double>(A.ell_part().width) * rows;
      return {stored, stored, 0};
    }
    case Format::Hyb: {
      // The overflow pass (and its row offsets) only runs when some row overflows.
      const double overflow = static_cast<double>(A.csr_part().stored);
      const double stored = static_cast<double>(A.ell_part().width) * rows + overflow;
      return {stored, stored, overflow > 0 ? rows + 1 : 0};
    }
    case Format::Sell: {
      const auto stored = static_cast<double>(A.sell_part().stored);
      return {stored, stored, rows + A.sell_part().slices + 1};
    }
    case Format::Dia:  // the slots whose column lies in the matrix (the others are skipped), no index
      return {static_cast<double>(A.dia_part().inside), 0, static_cast<double>(A.dia_part().diagonals)};
  }
  return {};
}

// ---- launch geometry ----------------------------------------------------------------------------------

std::size_t kernel_max_work_group(const cl::Kernel& kernel, const Context& context) {
  return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(context.device());
}

// How a kernel that gives each work-item a block of `rows_per_item` rows (spmv_csr_scalar, spmv_csr4,
// spmv_ell, spmv_hyb_overflow) is launched.
struct RowLaunch {
  std::int32_t rows_per_item = 1;
  std::size_t global = 0, local = 0;
};

// The one place the device type enters: what an automatic rows_per_work_item (0) means. A GPU wants
// one row per work-item in full work-groups, so that neighbouring work-items read neighbouring words.
// A CPU wants each core to stream through contiguous blocks of rows, as a CPU code would: about four
// blocks per core (for balance), each its own single-item work-group so the runtime can spread them
// over every core (a CPU runs one work-group on one core).
RowLaunch row_launch(const Context& context, const SpmvParams& params, std::int32_t rows, std::size_t max_work_group) {
  const DeviceInfo& info = context.info();
  const bool cpu = info.type == DeviceType::Cpu;
  std::size_t per_item = params.rows_per_work_item;
  if (per_item == 0) {
    const std::size_t blocks = std::max<std::size_t>(info.compute_units, 1) * 4;
    per_item = cpu ? std::max<std::size_t>((static_cast<std::size_t>(rows) + blocks - 1) / blocks, 1) : 1;
  }
  per_item = std::min<std::size_t>(per_item, std::max<std::int32_t>(rows, 1));
  RowLaunch launch;
  launch.rows_per_item = static_cast<std::int32_t>(per_item);
  const std::size_t items = (static_cast<std::size_t>(rows) + per_item - 1) / per_item;
  launch.local = cpu ? 1 : std::min(params.work_group_size, max_work_group);
  launch.global = round_up(items, launch.local);
  return launch;
}

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// The -D options of one SpMV program: the precision, the (alpha, beta, Kahan) variant, the row sums.
std::string build_options(const SpmvParams& params, Precision p, bool kahan, double alpha, double beta) {
  std::string options = precision_build_option(p) + row_sum_build_options(params, p);
  if (alpha == 1) options += " -DALPHA_ONE";
  if (beta == 0) options += " -DBETA_ZERO";
  if (kahan) options += " -DKAHAN";
  return options;
}

cl::Event enqueue(Context& context, const cl::Kernel& kernel, std::size_t global, std::size_t local) {
  cl::Event event;
  context.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local), nullptr, &event);
  return event;
}

// spmv_csr_scalar, spmv_csr4, spmv_ell, spmv_hyb_overflow, spmv_sell or spmv_dia over all rows; `other_args` sets the
// arguments after (rows, rows_per_item).
template <class SetArgs>
cl::Event enqueue_rows(Context& context, const SpmvParams& params, Precision p, cl::Kernel& kernel, std::int32_t rows,
                       const SetArgs& other_args) {
  const RowLaunch launch = row_launch(context, params, rows, kernel_max_work_group(kernel, context));
  KernelArgs args(kernel, p);
  args.value(static_cast<cl_int>(rows)).value(static_cast<cl_int>(launch.rows_per_item));
  other_args(args);
  return enqueue(context, kernel, launch.global, launch.local);
}

// ---- fused epilogues ---------------------------------------------------------------------------------

using AppendArgs = std::function<void(KernelArgs&)>;

std::string epilogue_option(const SpmvEpilogue* e) {
  if (e == nullptr) return {};
  if (e->kind == SpmvEpilogue::Kind::Residual)
    return e->d_out ? " -DSPMV_RESIDUAL -DSPMV_RESIDUAL_CORRECTION" : " -DSPMV_RESIDUAL";
  if (e->kind == SpmvEpilogue::Kind::Correction)
    return std::string(" -DSPMV_CORRECTION") + (e->d_prev ? " -DSPMV_FROM_D" : "") + (e->set_x ? " -DSPMV_SET_X" : "");
  const char* pending = e->pending == SpmvEpilogue::Pending::Add   ? " -DSPMV_PENDING_ADD"
                        : e->pending == SpmvEpilogue::Pending::Set ? " -DSPMV_PENDING_SET"
                                                                   : "";
  return std::string(e->last ? " -DSPMV_CHEBYSHEV -DSPMV_LAST" : " -DSPMV_CHEBYSHEV") + pending;
}

// How the kernel uses y: written, read and written, or (a last Chebyshev step) not at all.
Access output_access(const SpmvEpilogue* e, const Vector& y, double beta) {
  if (e == nullptr) return beta == 0 ? Access::Write : Access::ReadWrite;
  if (e->kind == SpmvEpilogue::Kind::Residual) return e->b == &y ? Access::ReadWrite : Access::Write;
  if (e->kind == SpmvEpilogue::Kind::Correction) return e->d_prev == &y ? Access::ReadWrite : Access::Write;
  if (e->last) return Access::Read;
  return e->r_in == &y ? Access::ReadWrite : Access::Write;
}

// The epilogue's operands on the device, appended after a kernel's own arguments (y's buffers serve an
// operand that is y itself).
AppendArgs epilogue_args(const SpmvEpilogue* e, Precision p, const Vector& y, const Vector::DeviceBuffers& yb) {
  if (e == nullptr) return [](KernelArgs&) {};
  const auto read = [&](Vector* v) { return v == &y ? yb : v->device(p, Access::Read); };
  if (e->kind == SpmvEpilogue::Kind::Residual) {
    const Vector::DeviceBuffers b = read(e->b);
    if (!e->d_out) return [b](KernelArgs& args) { args.vector(b); };
    const Vector::DeviceBuffers dinv = read(e->dinv), d_out = e->d_out->device(p, Access::Write);
    const double c2 = e->c2;
    return [=](KernelArgs& args) { args.vector(b).real(c2).vector(dinv).vector(d_out); };
  }
  if (e->kind == SpmvEpilogue::Kind::Correction) {
    // Without d_prev the kernel reads no d: y's buffers stand in.
    const Vector::DeviceBuffers d = e->d_prev ? read(e->d_prev) : yb;
    const Vector::DeviceBuffers xs = e->xs->device(p, e->set_x ? Access::Write : Access::ReadWrite);
    const double c1 = e->c1, c2 = e->c2;
    return [=](KernelArgs& args) { args.real(c1).real(c2).vector(d).vector(xs); };
  }
  const Vector::DeviceBuffers dinv = read(e->dinv), r_in = read(e->r_in);
  const Vector::DeviceBuffers d_out = e->d_out->device(p, e->last ? Access::Read : Access::Write);
  const Vector::DeviceBuffers xs =
      e->xs->device(p, e->pending == SpmvEpilogue::Pending::Set ? Access::Write : Access::ReadWrite);
  const double c1 = e->c1, c2 = e->c2;
  return [=](KernelArgs& args) { args.real(c1).real(c2).vector(dinv).vector(r_in).vector(d_out).vector(xs); };
}

}  // namespace

void check_operands(const Matrix& A, const Vector& x, const Vector& y) {
  auto shape = [&] { return std::to_string(A.rows()) + " x " + std::to_string(A.cols()); };
  if (x.size() != static_cast<std::size_t>(A.cols()))
    throw Error("spmv: x ('" + x.name() + "') has " + std::to_string(x.size()) + " elements, the " + shape() +
                " matrix needs " + std::to_string(A.cols()));
  if (y.size() != static_cast<std::size_t>(A.rows()))
    throw Error("spmv: y ('" + y.name() + "') has " + std::to_string(y.size()) + " elements, the " + shape() +
                " matrix needs " + std::to_string(A.rows()));
  if (&x == &y) throw Error("spmv: x and y are the same vector ('" + x.name() + "'); y must not alias x");
}

void check_epilogue(const SpmvEpilogue& e, const Matrix& A, const Vector& x, const Vector& y) {
  const auto rows = static_cast<std::size_t>(A.rows());
  const auto need = [&](const Vector* v, const std::string& role) {
    if (v == nullptr) throw Error("spmv: the epilogue's " + role + " is missing");
    if (v->size() != rows)
      throw Error("spmv: the epilogue's " + role + " ('" + v->name() + "') has " + std::to_string(v->size()) +
                  " elements, A has " + std::to_string(rows) + " rows");
  };
  if (e.kind == SpmvEpilogue::Kind::Residual) {
    need(e.b, "b");
    if (e.d_out) {
      need(e.dinv, "dinv");
      if (e.d_out == &x || e.d_out == &y || e.d_out == e.b || e.d_out == e.dinv)
        throw Error("spmv: a residual with a correction writes y and d_out: d_out ('" + e.d_out->name() +
                    "') must differ from x, y, b and dinv");
    }
    return;
  }
  if (e.kind == SpmvEpilogue::Kind::Correction) {
    need(e.xs, "xs");
    if (e.d_prev) need(e.d_prev, "d_prev");
    if (e.xs == &x || e.xs == &y || e.d_prev == &x)
      throw Error(
          "spmv: a correction writes y and xs and reads d_prev per row: xs must differ from x and y, and "
          "d_prev from x");
    return;
  }
  if (A.rows() != A.cols())
    throw Error("spmv: a Chebyshev step needs a square matrix (x is the previous correction, indexed by row); A is " +
                std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  need(e.dinv, "dinv");
  need(e.r_in, "r_in");
  need(e.d_out, "d_out");
  need(e.xs, "xs");
  if (e.d_out == &x || e.xs == &x)
    throw Error("spmv: a Chebyshev step cannot write x ('" + x.name() + "'): other rows still read it");
  if (e.d_out == &y || e.xs == &y || e.d_out == e.xs)
    throw Error("spmv: a Chebyshev step writes y, d_out and xs: they must be three different vectors");
}

// flops = 2 nnz (a multiply and an add per true nonzero; padding is not useful work)
//       + 2 rows when beta != 0 (beta*y and its addition); the scaling by alpha is not counted.
// bytes = value bytes * stored entries (CSR4, ELL, SELL and DIA padding included: the kernels read
//           it; quasi-double values are head + tail, 8 bytes)
//       + 4 * their column indices (one per stored entry; DIA reads none)
//       + 4 * (rows + 1) row offsets per CSR-like part (CSR, CSR4, HYB's overflow when not empty),
//         SELL's row order and slice offsets, DIA's diagonal offsets
//       + cols elements of x (each read once: the ideal cache)
//       + rows elements of y written, and read again when beta != 0.
OpCost spmv_cost(const Matrix& A, Precision p, double beta, ValueStorage storage) {
  const double element = static_cast<double>(bytes_per_element(p));
  const double value_bytes = storage == ValueStorage::Half ? 2.0 : element;
  const double rows = A.rows(), cols = A.cols();
  const StoredEntries stored = stored_entries(A);
  OpCost cost;
  cost.flops = 2.0 * static_cast<double>(A.nnz()) + (beta != 0 ? 2.0 * rows : 0.0);
  cost.bytes = value_bytes * stored.entries + 4.0 * (stored.column_indices + stored.other_ints) + element * cols +
               element * rows * (beta != 0 ? 2.0 : 1.0);
  return cost;
}

bool spmv_epilogue_supported(const Matrix& A) { return A.format() != Format::Hyb; }

// The SpMV's cost with y written once (beta = 0), plus per row: Residual reads b (1 element; with a
// correction also dinv, and writes d_out: 3); a
// Chebyshev step reads r_in, dinv and xs and writes xs (4; x[row] is the SpMV's own x, counted once),
// and y (already counted) and d_out unless it is the last step, which writes neither; a correction
// reads d_prev where given and xs unless set_x, and writes xs.
OpCost spmv_epilogue_cost(const Matrix& A, Precision p, const SpmvEpilogue& epilogue, ValueStorage storage) {
  OpCost cost = spmv_cost(A, p, 0.0, storage);
  const double rows = A.rows(), element = static_cast<double>(bytes_per_element(p));
  if (epilogue.kind == SpmvEpilogue::Kind::Residual) {
    cost.flops += rows + (epilogue.d_out ? 2.0 * rows : 0.0);
    cost.bytes += element * rows * (epilogue.d_out ? 3.0 : 1.0);  // b; with a correction dinv and d_out too
  } else if (epilogue.kind == SpmvEpilogue::Kind::Correction) {
    cost.flops += (epilogue.d_prev ? 3.0 : 1.0) * rows + (epilogue.set_x ? 0.0 : rows);
    cost.bytes += element * rows * ((epilogue.d_prev ? 1.0 : 0.0) + (epilogue.set_x ? 1.0 : 2.0));
  } else {
    // A pending correction adds x[row], the SpMV's own x (counted once), to xs; set, xs is not read.
    const bool pending = epilogue.pending != SpmvEpilogue::Pending::None;
    cost.flops += 6.0 * rows + (pending ? rows : 0.0);
    cost.bytes +=
        element * rows *
        ((epilogue.last ? 4.0 - 1.0 : 4.0 + 1.0) - (epilogue.pending == SpmvEpilogue::Pending::Set ? 1.0 : 0.0));
  }
  return cost;
}

std::string value_option(const Matrix::Values& values) {
  return values.storage == ValueStorage::Half ? " -DHALF_VALUES" : "";
}

std::string dia_tile_option(const SpmvParams& params) {
  return params.dia_tile_rows > 0 ? " -DDIA_TILE=" + std::to_string(params.dia_tile_rows) : std::string();
}

std::string row_sum_build_options(const SpmvParams& params, Precision p) {
  return " -DROW_CHAINS=" + std::to_string(row_sum_chains(params, p)) +
         " -DROW_GROUP=" + std::to_string(params.row_load_group);
}

std::string stream_loads_option(const SpmvParams& params, const DeviceInfo& info, bool balanced_rows) {
  if (params.stream_loads == 0 || !balanced_rows) return {};
  const std::string vendor = detail::to_lower(info.vendor + " " + info.platform_vendor);
  return vendor.find("nvidia") == std::string::npos ? std::string() : std::string(" -DSTREAM_LOADS");
}

// Kahan compensation applies to single precision only (quasi-double and double ignore the flag). HYB
// refuses it: its row sums are split in two passes whose float combination would lose the
// compensation, so the result would not be what was asked for.
cl::Event spmv_device(Context& context, const SpmvParams& params, Precision p, bool kahan, double alpha, Matrix& A,
                      Vector& x, double beta, Vector& y, cl::Event* first, const SpmvEpilogue* epilogue,
                      ValueStorage storage) {
  check_operands(A, x, y);
  if (epilogue != nullptr) {
    if (!spmv_epilogue_supported(A))
      throw Error("spmv: " + to_string(A.format()) + " takes no fused epilogue (its second pass adds to y)");
    check_epilogue(*epilogue, A, x, y);
  }
  if (A.context().get() != &context || x.context().get() != &context || y.context().get() != &context)
    throw Error("spmv: the matrix and both vectors must live on the context the operation runs on");
  if (p == Precision::Double && !context.info().fp64)
    throw Error("spmv: double precision needs fp64, which " + context.info().name + " lacks");
  kahan = kahan && p == Precision::Single;
  if (kahan && A.format() == Format::Hyb)
    throw Error(
        "spmv: Kahan-compensated single-precision SpMV supports CSR, CSR4, ELL, SELL and DIA, not HYB (its two "
        "passes would round each row sum in between); convert the matrix or turn Kahan off");
  if (params.work_group_size == 0) throw Error("spmv: SpmvParams::work_group_size must be at least 1");
  if (storage == ValueStorage::Half && p != Precision::Single)
    throw Error("spmv: half-precision matrix values are read in single precision, not " + to_string(p));

  const std::int32_t rows = A.rows();
  if (rows == 0) {
    // Nothing to compute, but callers profile the returned event.
    cl::Event marker;
    context.queue().enqueueMarkerWithWaitList(nullptr, &marker);
    return marker;
  }

  const std::string options = build_options(params, p, kahan, alpha, beta) + offset_build_option(A) +
                              epilogue_option(epilogue) +
                              stream_loads_option(params, context.info(), csr_balanced_applies(params, A));
  const Vector::DeviceBuffers xb = x.device(p, Access::Read);
  const Vector::DeviceBuffers yb = y.device(p, output_access(epilogue, y, beta));
  const AppendArgs append_epilogue = epilogue_args(epilogue, p, y, yb);
  cl::Event last;

  switch (A.format()) {
    case Format::Csr: {
      if (csr_balanced_applies(params, A)) {  // very unequal rows: the load-balanced kernels
        last = spmv_csr_balanced(context, params, p, kahan, options, alpha, A, xb, beta, yb, append_epilogue, storage);
        break;
      }
      const Matrix::CsrPart& part = A.csr_part();
      const Matrix::Values values = A.csr_values(p, storage);
      if (A.stats().mean_row_length >= params.csr_vector_min_mean_row_length) {
        if (!is_power_of_two(params.vector_lanes) || params.vector_lanes > params.work_group_size)
          throw Error("spmv: SpmvParams::vector_lanes (" + std::to_string(params.vector_lanes) +
                      ") must be a power of two no larger than work_group_size (" +
                      std::to_string(params.work_group_size) + ")");
        cl::Kernel kernel = context.kernel("spmv/csr.cl", "spmv_csr_vector", options + value_option(values));
        const std::size_t max_group = kernel_max_work_group(kernel, context);
        if (max_group < params.vector_lanes)
          throw Error("spmv: SpmvParams::vector_lanes (" + std::to_string(params.vector_lanes) + ") exceeds the " +
                      std::to_string(max_group) + " work-items " + context.info().name +
                      " allows in one work-group for this kernel");
        const std::size_t widest_group = std::min(params.work_group_size, max_group);
        const std::size_t lanes = csr_vector_lanes(params, A.stats().mean_row_length, widest_group);
        const std::size_t group = widest_group / lanes * lanes;
        const std::size_t rows_per_group = group / lanes;
        const std::size_t groups = (static_cast<std::size_t>(rows) + rows_per_group - 1) / rows_per_group;
        const std::size_t accumulator = (p == Precision::Single && !kahan) ? sizeof(cl_float) : 2 * sizeof(cl_float);
        KernelArgs args(kernel, p);
        args.value(static_cast<cl_int>(rows)).value(static_cast<cl_int>(lanes));
        args.value(part.row_offsets).value(part.col_indices).matrix_values(values).vector(xb);
        args.real(alpha).real(beta).vector(yb).local(group * accumulator);
        append_epilogue(args);
        last = enqueue(context, kernel, groups * group, group);
      } else {
        cl::Kernel kernel = context.kernel("spmv/csr.cl", "spmv_csr_scalar", options + value_option(values));
        last = enqueue_rows(context, params, p, kernel, rows, [&](KernelArgs& args) {
          args.value(part.row_offsets).value(part.col_indices).matrix_values(values).vector(xb);
          args.real(alpha).real(beta).vector(yb);
          append_epilogue(args);
        });
      }
      break;
    }
    case Format::Csr4: {
      const Matrix::CsrPart& part = A.csr_part();
      if (part.stored > kIntMax) throw Error("spmv: CSR4 storage exceeds the int32 index range");
      const Matrix::Values values = A.csr_values(p, storage);
      cl::Kernel kernel = context.kernel("spmv/csr4.cl", "spmv_csr4", options + value_option(values));
      last = enqueue_rows(context, params, p, kernel, rows, [&](KernelArgs& args) {
        args.value(part.row_offsets).value(part.col_indices).matrix_values(values).vector(xb);
        args.real(alpha).real(beta).vector(yb);
        append_epilogue(args);
      });
      break;
    }
    case Format::Ell:
    case Format::Hyb: {
      const bool hyb = A.format() == Format::Hyb;
      const char* file = hyb ? "spmv/hyb.cl" : "spmv/ell.cl";
      const Matrix::EllPart& ell = A.ell_part();
      // The kernel's running index reaches width * pitch + row.
      if (static_cast<std::int64_t>(ell.width) * ell.pitch + rows > kIntMax)
        throw Error("spmv: ELL storage (width " + std::to_string(ell.width) + " x pitch " + std::to_string(ell.pitch) +
                    ") exceeds the int32 index range");
      const Matrix::Values ell_values = A.ell_values(p, storage);
      cl::Kernel kernel = context.kernel(file, "spmv_ell", options + value_option(ell_values));
      last = enqueue_rows(context, params, p, kernel, rows, [&](KernelArgs& args) {
        args.value(static_cast<cl_int>(ell.width)).value(static_cast<cl_int>(ell.pitch));
        args.value(ell.col_indices).matrix_values(ell_values).vector(xb).real(alpha).real(beta).vector(yb);
        append_epilogue(args);
      });
      if (!hyb) break;
      const Matrix::CsrPart& overflow = A.csr_part();
      if (overflow.stored == 0) break;  // no row longer than the ELL width: one pass is all
      if (first) *first = last;
      if (overflow.stored > kIntMax) throw Error("spmv: HYB overflow storage exceeds the int32 index range");
      const Matrix::Values overflow_values = A.csr_values(p, storage);
      cl::Kernel add = context.kernel(file, "spmv_hyb_overflow", options + value_option(overflow_values));
      last = enqueue_rows(context, params, p, add, rows, [&](KernelArgs& args) {
        args.value(overflow.row_offsets).value(overflow.col_indices).matrix_values(overflow_values).vector(xb);
        args.real(alpha).vector(yb);
      });
      break;
    }
    case Format::Sell: {
      const Matrix::SellPart& sell = A.sell_part();
      const Matrix::Values values = A.sell_values(p, storage);
      cl::Kernel kernel = context.kernel("spmv/sell.cl", "spmv_sell", options + value_option(values));
      last = enqueue_rows(context, params, p, kernel, rows, [&](KernelArgs& args) {
        args.value(static_cast<cl_int>(sell.slice_height)).value(sell.slice_offsets).value(sell.rows);
        args.value(sell.col_indices).matrix_values(values).vector(xb).real(alpha).real(beta).vector(yb);
        append_epilogue(args);
      });
      break;
    }
    case Format::Dia: {
      const Matrix::DiaPart& dia = A.dia_part();
      const Matrix::Values values = A.dia_values(p, storage);
      cl::Kernel kernel =
          context.kernel("spmv/dia.cl", "spmv_dia", options + dia_tile_option(params) + value_option(values));
      last = enqueue_rows(context, params, p, kernel, rows, [&](KernelArgs& args) {
        args.value(static_cast<cl_int>(A.cols())).value(static_cast<cl_int>(dia.diagonals));
        args.value(static_cast<cl_int>(dia.pitch)).value(dia.offsets);
        args.matrix_values(values).vector(xb).real(alpha).real(beta).vector(yb);
        append_epilogue(args);
      });
      break;
    }
  }
  return last;
}

}  // namespace clkr::detail
