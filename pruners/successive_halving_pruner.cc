#include "pruners/successive_halving_pruner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace hpo {

namespace {

// "auto": a hundredth of the longest COMPLETE trial, at least one step.
std::optional<int> estimate_min_resource(const PrunerStudy& study) {
  std::optional<int> longest;
  for (const auto& t : study.trials) {
    const auto last = t.last_step();
    if (t.state == TrialState::kComplete && last)
      longest = std::max(longest.value_or(*last), *last);
  }
  if (!longest) return std::nullopt;
  return std::max(*longest / 100, 1);
}

bool promotable(double value, std::vector<double> competing, int reduction_factor,
                Direction direction) {
  size_t index = competing.size() / static_cast<size_t>(reduction_factor);
  index = index == 0 ? 0 : index - 1;
  std::sort(competing.begin(), competing.end());
  return direction == Direction::kMaximize ? value >= competing[competing.size() - 1 - index]
                                           : value <= competing[index];
}

// base^exp, saturating at INT64_MAX: a rung past int64's reach is a step no
// trial gets to, never one that wraps below the trial's.
int64_t ipow(int64_t base, int exp) {
  int64_t r = 1;
  while (exp-- > 0) {
    if (r > std::numeric_limits<int64_t>::max() / base) return std::numeric_limits<int64_t>::max();
    r *= base;
  }
  return r;
}

}  // namespace

PruneDecision SuccessiveHalvingPruner::decide(const PrunerStudy& study, const PrunerTrial& trial) {
  PruneDecision decision;
  const auto step = trial.last_step();
  if (!step) return decision;
  int rung = 0;
  while (trial.rungs.count(rung)) ++rung;
  const double value = trial.intermediate.at(*step);
  while (true) {
    if (!options_.min_resource) {
      options_.min_resource = estimate_min_resource(study);
      if (!options_.min_resource) return decision;
    }
    const int64_t factor = ipow(options_.reduction_factor, options_.min_early_stopping_rate + rung);
    const int64_t promotion_step =
        factor > std::numeric_limits<int64_t>::max() / std::max<int64_t>(1, *options_.min_resource)
            ? std::numeric_limits<int64_t>::max()
            : *options_.min_resource * factor;
    if (*step < promotion_step) return decision;
    if (std::isnan(value)) {
      decision.prune = true;
      return decision;
    }
    decision.completed_rungs[rung] = value;
    std::vector<double> competing;
    for (const auto& t : study.trials) {
      if (t.number == trial.number) continue;  // its own entry is `value`
      const auto it = t.rungs.find(rung);
      if (it != t.rungs.end()) competing.push_back(it->second);
    }
    competing.push_back(value);
    if (static_cast<int>(competing.size()) <= options_.bootstrap_count ||
        !promotable(value, competing, options_.reduction_factor, study.direction)) {
      decision.prune = true;
      return decision;
    }
    ++rung;
  }
}

}  // namespace hpo
