// The BLAS1 searches: the variant (chunked or grid-stride) and its launch shape on AXPY and DOT, then
// DOT's reduction grid when grid-stride.
#include <algorithm>
#include <utility>

#include "device_tuner.hpp"

namespace clkr::detail::tune {
namespace {

std::string blas1_label(const Blas1Params& b) {
  if (b.variant == Blas1Variant::GridStride)
    return "grid_stride wg=" + std::to_string(b.work_group_size) +
           " groups/cu=" + std::to_string(b.groups_per_compute_unit);
  return "chunked wg=" + std::to_string(b.work_group_size) +
         " items/cu=" + std::to_string(b.work_items_per_compute_unit) + " vw=" + std::to_string(b.vector_width);
}

std::string reduction_label(const ReductionParams& r) {
  return "wg=" + std::to_string(r.work_group_size) + " groups/cu=" + std::to_string(r.groups_per_compute_unit);
}

}  // namespace

void Tuner::tune_blas1() {
  Vector x(context_, random_values(result_.vector_size, 1), "tune.x");
  Vector y(context_, random_values(result_.vector_size, 2), "tune.y");
  result_.params.blas1 = measure(blas1_search(x, y), blas1_label(result_.defaults.blas1)).blas1;
  if (result_.params.blas1.variant == Blas1Variant::GridStride) {
    result_.params.reduction = measure(reduction_search(x, y), reduction_label(result_.defaults.reduction)).reduction;
  } else {
    TuneSearch skipped;
    skipped.name = "reduction";
    skipped.metric = "dot";
    skipped.note =
        "not searched: the chunked DOT sums one chunk per work-item, so the reduction parameters only "
        "size its final work-group; kept at the defaults";
    say("reduction: " + skipped.note);
    result_.searches.push_back(std::move(skipped));
  }
}

// BLAS1: the variant and its launch shape, timed on AXPY and DOT (DOT's reduction stage keeps the
// current reduction parameters; the reduction search refines them next).
SearchSpec Tuner::blas1_search(Vector& x, Vector& y) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "blas1";
  spec.metric = "axpy + dot, " + std::to_string(result_.vector_size) + " elements";
  const std::size_t axpy_limit =
      kernel_limit(*context_, "blas1/axpy.cl", "axpy", precision_options() + " -DCLKR_GRID_STRIDE");
  auto add = [&](const Blas1Params& b) {
    DeviceParams p = base;
    p.blas1 = b;
    const std::string limit = b.variant == Blas1Variant::GridStride
                                  ? work_group_limit(*context_, b.work_group_size, axpy_limit, "axpy", 0)
                                  : std::string();
    add_candidate(spec, blas1_label(b), p, limit);
  };
  add(base.blas1);
  const std::vector<std::size_t> groups =
      options_.quick ? std::vector<std::size_t>{4} : std::vector<std::size_t>{1, 2, 4, 8, 16, 32};
  const std::vector<std::size_t> sizes = options_.quick ? std::vector<std::size_t>{64} : kWorkGroupSizes;
  const std::vector<std::size_t> items =
      options_.quick ? std::vector<std::size_t>{1, 2} : std::vector<std::size_t>{1, 2, 4};
  const std::vector<std::size_t> widths =
      options_.quick ? std::vector<std::size_t>{8} : std::vector<std::size_t>{4, 8, 16};
  // Chunked: one work-item per work-group, so each chunk is its own group, which a CPU runtime gives a core.
  for (std::size_t i : items)
    for (std::size_t w : widths) add({Blas1Variant::Chunked, 1, base.blas1.groups_per_compute_unit, i, w});
  for (std::size_t s : sizes)
    for (std::size_t g : groups)
      add({Blas1Variant::GridStride, s, g, base.blas1.work_items_per_compute_unit, base.blas1.vector_width});
  spec.run = [this, &x, &y, sign = 1.0](Blas& blas) mutable {
    blas.reset_counters();
    sign = -sign;  // y moves back and forth instead of growing
    blas.axpy(0.25 * sign, x, y);
    blas.dot_async(x, y);
    context_->finish();
    const auto& c = blas.counters();
    return std::vector<TuneOpTime>{{"axpy", c.at("axpy").seconds, c.at("axpy").bytes},
                                   {"dot", c.at("dot").seconds, c.at("dot").bytes}};
  };
  return spec;
}

// Reduction: DOT's partial-sum grid. Grid-stride only: the chunked DOT sums one chunk per work-item
// and the reduction parameters would only size its final single work-group.
SearchSpec Tuner::reduction_search(Vector& x, Vector& y) {
  const DeviceParams& base = result_.params;
  SearchSpec spec;
  spec.name = "reduction";
  spec.metric = "dot, " + std::to_string(result_.vector_size) + " elements";
  const std::string options = precision_options() + " -DCLKR_GRID_STRIDE";
  const std::size_t limit = std::min(kernel_limit(*context_, "blas1/dot.cl", "dot_partial", options),
                                     kernel_limit(*context_, "blas1/dot.cl", "dot_final", options));
  auto add = [&](const ReductionParams& r) {
    DeviceParams p = base;
    p.reduction = r;
    add_candidate(spec, reduction_label(r), p,
                  work_group_limit(*context_, r.work_group_size, limit, "dot", bytes_per_element(result_.precision)));
  };
  add(base.reduction);
  const std::vector<std::size_t> groups =
      options_.quick ? std::vector<std::size_t>{4} : std::vector<std::size_t>{1, 2, 4, 8, 16, 32};
  for (std::size_t s : options_.quick ? std::vector<std::size_t>{64} : kWorkGroupSizes)
    for (std::size_t g : groups) add({s, g});
  spec.run = [this, &x, &y](Blas& blas) {
    blas.reset_counters();
    blas.dot_async(x, y);
    context_->finish();
    const auto& c = blas.counters();
    return std::vector<TuneOpTime>{{"dot", c.at("dot").seconds, c.at("dot").bytes}};
  };
  return spec;
}

}  // namespace clkr::detail::tune
