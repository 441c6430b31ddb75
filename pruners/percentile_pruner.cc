#include "pruners/percentile_pruner.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpo {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Whether `step` is the first reported step in its checking interval, so
// that a trial reporting several steps per interval is checked once.
bool first_in_interval(int step, const std::map<int, double>& reported, int warmup, int interval) {
  const int nearest_lower = (step - warmup) / interval * interval + warmup;
  int second_last = -1;
  for (const auto& [s, v] : reported) {
    if (s > second_last && s != step) second_last = s;
  }
  return second_last < nearest_lower;
}

double best_over_steps(const PrunerTrial& trial, Direction direction) {
  double best = kNaN;
  for (const auto& [step, v] : trial.intermediate) {
    if (std::isnan(v)) continue;
    if (std::isnan(best) || (direction == Direction::kMaximize ? v > best : v < best)) best = v;
  }
  return best;
}

}  // namespace

double nan_percentile(std::vector<double> values, double percentile) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const double pos = percentile / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double t = pos - static_cast<double>(lo);
  const double a = values[lo], b = values[hi], diff = b - a;
  // numpy's lerp: interpolate from the nearer end, for the same rounding.
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

PruneDecision PercentilePruner::decide(const PrunerStudy& study, const PrunerTrial& trial) {
  std::vector<const PrunerTrial*> complete;
  for (const auto& t : study.trials) {
    if (t.state == TrialState::kComplete) complete.push_back(&t);
  }
  if (complete.empty() || static_cast<int>(complete.size()) < options_.n_startup_trials) return {};
  const auto step = trial.last_step();
  if (!step || *step < options_.n_warmup_steps) return {};
  if (!first_in_interval(*step, trial.intermediate, options_.n_warmup_steps,
                         options_.interval_steps)) {
    return {};
  }
  const double best = best_over_steps(trial, study.direction);
  if (std::isnan(best)) return {true, {}};

  std::vector<double> at_step;
  for (const auto* t : complete) {
    const auto it = t->intermediate.find(*step);
    if (it != t->intermediate.end()) at_step.push_back(it->second);
  }
  if (static_cast<int>(at_step.size()) < options_.n_min_trials) return {};
  const double p =
      nan_percentile(at_step, study.direction == Direction::kMaximize ? 100.0 - options_.percentile
                                                                      : options_.percentile);
  if (std::isnan(p)) return {};
  return {study.direction == Direction::kMaximize ? best < p : best > p, {}};
}

}  // namespace hpo
