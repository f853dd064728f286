// Threshold searches composed from a kernel search's measurements (which kernel runs on which sweep
// matrix), measuring nothing again.
#include <algorithm>
#include <cmath>
#include <utility>

#include "device_tuner.hpp"

namespace clkr::detail::tune {

// A threshold chosen from a kernel search without measuring anything again: candidate (variant v,
// threshold t) runs sweep matrix i on v when its key (row length, longest/mean row) is t or more and on
// the baseline kernel otherwise, so its time is the sum of those measurements; threshold infinity is the
// baseline alone. Every threshold is scored with the same numbers (each kernel was measured once per
// matrix), so noise cannot favour one threshold over another on a matrix where both run the same kernel.
DeviceParams Tuner::compose_threshold(const TuneSearch& kernels, const ThresholdSpec& spec) {
  TuneSearch search;
  search.name = spec.name;
  search.metric = "composed from " + kernels.name;
  const auto baseline = std::find_if(kernels.measured.begin(), kernels.measured.end(),
                                     [&](const TuneMeasurement& m) { return m.label == spec.baseline; });
  const std::string default_label = spec.label(result_.defaults);
  auto add = [&](const TuneMeasurement& variant, double threshold) {
    TuneMeasurement m = *baseline;
    m.search = search.name;
    m.params = result_.params;
    spec.set(m.params, variant.params, threshold);
    m.label = spec.label(m.params);
    for (const TuneMeasurement& existing : search.measured)
      if (existing.label == m.label) return;
    m.is_default = m.label == default_label;
    m.pruned = false;
    for (std::size_t i = 0; i < spec.keys.size(); ++i)
      if (spec.keys[i] >= threshold) m.ops[i] = variant.ops[i];
    search.measured.push_back(std::move(m));
  };
  add(*baseline, kInfinity);
  for (const TuneMeasurement& variant : kernels.measured)
    if (variant.label != spec.baseline)
      for (double t : spec.thresholds)
        if (std::isfinite(t)) add(variant, t);
  std::stable_sort(search.measured.begin(), search.measured.end(),
                   [](const TuneMeasurement& a, const TuneMeasurement& b) { return a.seconds() < b.seconds(); });
  DeviceParams chosen = choose(search);
  result_.searches.push_back(std::move(search));
  return chosen;
}

}  // namespace clkr::detail::tune
