// How a search is measured and decided: every candidate timed round robin (the slowest pruned after
// the first pass), the fastest confirmed beside the default before it may replace it, and the choice
// that keeps the default within the noise.
#include <algorithm>
#include <utility>

#include "clkr/runtime/error.hpp"
#include "device_tuner.hpp"

namespace clkr::detail::tune {
namespace {

// A configuration whose first timed run takes longer than this many times the fastest first run is
// not repeated: repetitions only refine the configurations that can still win, and the searches stay
// bounded on devices where a whole variant is an order of magnitude off (grid-stride on CPUs). Wide
// enough that one run slowed by other work (small sizes on a busy machine: 2-3x) is not dropped.
constexpr double kPruneFactor = 4.0;

// A configuration replaces the default only when it is faster by more than this fraction.
constexpr double kKeepDefaultMargin = 0.03;

// How many more runs each of the fastest configuration and the default get, alternating, before a
// tuned file replaces the default, and how many challengers are timed again (Tuner::confirm_challengers).
constexpr std::size_t kConfirmRounds = 5;
constexpr std::size_t kMaxChallengers = 3;

std::string ops_text(const std::vector<TuneOpTime>& ops) {
  std::string text;
  for (const auto& op : ops)
    text += (text.empty() ? "" : ", ") + op.op + " " + fixed(op.gbytes_per_second(), 2) + " GB/s";
  return text;
}

}  // namespace

DeviceParams Tuner::measure(SearchSpec spec, const std::string& default_label) {
  TuneSearch search;
  search.name = spec.name;
  search.metric = spec.metric;
  search.skipped = spec.skipped;
  const std::size_t count = spec.candidates.size();
  say(spec.name + ": " + std::to_string(count) + " configurations (" + spec.metric + "), " +
      std::to_string(spec.skipped.size()) + " beyond the device's limits");
  for (const std::string& s : spec.skipped) say(spec.name + ": skip " + s);
  if (count == 0) throw Error("tune_device: " + spec.name + ": every configuration is beyond the device's limits");

  // Round robin: pass r times every configuration still in the running once, so a slow drift of the
  // machine's load (other processes) touches all of them alike instead of favouring whichever ran in
  // a quiet moment. Pass 0 also warms each one up (kernel builds, the runtime's specialisation for the
  // launch) and decides which are pruned.
  std::vector<Blas> blases;
  blases.reserve(count);
  for (const Candidate& c : spec.candidates) {
    BlasOptions blas_options;
    blas_options.params = c.params;
    blases.emplace_back(context_, Location::Device, result_.precision, blas_options);
    TuneMeasurement m;
    m.search = spec.name;
    m.label = c.label;
    m.params = c.params;
    m.is_default = c.label == default_label;
    search.measured.push_back(std::move(m));
  }
  double best = kInfinity;
  for (std::size_t i = 0; i < count; ++i) {
    TuneMeasurement& m = search.measured[i];
    spec.run(blases[i]);
    m.ops = spec.run(blases[i]);
    best = std::min(best, m.seconds());
    say("[" + spec.name + " " + std::to_string(i + 1) + "/" + std::to_string(count) + "] " + m.label +
        (m.is_default ? " (default)" : "") + ": " + ops_text(m.ops));
  }
  std::size_t pruned = 0;
  for (TuneMeasurement& m : search.measured) {
    // The default is the baseline every choice is compared with: it always gets every repetition.
    m.pruned = spec.prune && !m.is_default && m.seconds() > kPruneFactor * best;
    pruned += m.pruned ? 1 : 0;
  }
  if (pruned > 0)
    say(spec.name + ": " + std::to_string(pruned) + " configurations timed once only (over " + fixed(kPruneFactor, 0) +
        "x the fastest first run)");
  for (std::size_t r = 1; r < repetitions_; ++r) {
    for (std::size_t i = 0; i < count; ++i) {
      TuneMeasurement& m = search.measured[i];
      if (m.pruned) continue;
      std::vector<TuneOpTime> ops = spec.run(blases[i]);
      // The fastest run of each operation: the others were slowed by something else.
      for (std::size_t k = 0; k < ops.size(); ++k)
        if (ops[k].seconds < m.ops[k].seconds) m.ops[k] = ops[k];
    }
  }
  const bool fastest_confirmed = confirm_challengers(search, spec, blases);
  std::stable_sort(search.measured.begin(), search.measured.end(),
                   [](const TuneMeasurement& a, const TuneMeasurement& b) { return a.seconds() < b.seconds(); });
  DeviceParams chosen = choose(search, fastest_confirmed);
  result_.searches.push_back(std::move(search));
  return chosen;
}

// The fastest configuration beat the default on a few runs each; on a busy machine (a CI job with
// other tests beside it) that can be one lucky run against unlucky ones, and a tuned file would then
// make the device slower. So the fastest is timed again beside the default, alternating,
// kConfirmRounds times each: its result becomes the fastest of these new runs only, the default's the
// fastest of all its runs. If another configuration is now the fastest, it is confirmed the same
// way, up to kMaxChallengers; one still unconfirmed after that loses to the default.
bool Tuner::confirm_challengers(TuneSearch& search, const SearchSpec& spec, std::vector<Blas>& blases) const {
  std::vector<TuneMeasurement>& measured = search.measured;
  const auto def = static_cast<std::size_t>(
      std::find_if(measured.begin(), measured.end(), [](const TuneMeasurement& m) { return m.is_default; }) -
      measured.begin());
  if (def == measured.size()) return true;  // a table without a default: nothing to replace
  auto keep_fastest_ops = [](std::vector<TuneOpTime>& best, std::vector<TuneOpTime> ops) {
    if (best.empty()) {
      best = std::move(ops);
      return;
    }
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (ops[k].seconds < best[k].seconds) best[k] = ops[k];
  };
  std::vector<bool> confirmed(measured.size(), false);
  for (std::size_t challengers = 0;; ++challengers) {
    std::size_t fastest = 0;
    for (std::size_t i = 1; i < measured.size(); ++i)
      if (measured[i].seconds() < measured[fastest].seconds()) fastest = i;
    if (fastest == def || confirmed[fastest] ||
        measured[def].seconds() <= measured[fastest].seconds() * (1 + kKeepDefaultMargin))
      return true;  // choose() takes a confirmed challenger or keeps the default
    if (challengers == kMaxChallengers) {
      search.note = "default kept: " + std::to_string(kMaxChallengers) + " challengers timed again were no faster; " +
                    measured[fastest].label + " left unconfirmed";
      return false;
    }
    const double before = measured[fastest].seconds();
    std::vector<TuneOpTime> again;
    for (std::size_t r = 0; r < kConfirmRounds; ++r) {
      keep_fastest_ops(measured[def].ops, spec.run(blases[def]));
      keep_fastest_ops(again, spec.run(blases[fastest]));
    }
    measured[fastest].ops = std::move(again);
    confirmed[fastest] = true;
    say(spec.name + ": " + measured[fastest].label + " timed again beside the default: " + fixed(before * 1e6, 1) +
        " -> " + fixed(measured[fastest].seconds() * 1e6, 1) + " us, default " +
        fixed(measured[def].seconds() * 1e6, 1) + " us");
  }
}

// The fastest configuration, unless the default is within kKeepDefaultMargin of it: a difference that
// small is within the run-to-run noise, and a tuned file should not change the device's behaviour on
// the strength of noise.
DeviceParams Tuner::choose(TuneSearch& search, bool fastest_confirmed) const {
  const TuneMeasurement& fastest = search.measured.front();
  const auto def = std::find_if(search.measured.begin(), search.measured.end(),
                                [](const TuneMeasurement& m) { return m.is_default; });
  if (def != search.measured.end() && def != search.measured.begin() &&
      (!fastest_confirmed || def->seconds() <= fastest.seconds() * (1 + kKeepDefaultMargin))) {
    if (fastest_confirmed)
      search.note =
          "default kept: within " + fixed(100 * kKeepDefaultMargin, 0) + "% of the fastest (" + fastest.label + ")";
    search.chosen = def->label;
    say(search.name + ": " + search.note);
    return def->params;
  }
  search.chosen = fastest.label;
  say(search.name + ": best " + fastest.label + ", " + fixed(fastest.gbytes_per_second(), 2) + " GB/s");
  return fastest.params;
}

}  // namespace clkr::detail::tune
