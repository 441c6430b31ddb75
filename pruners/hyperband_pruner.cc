#include "pruners/hyperband_pruner.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>

namespace hpo {

bool HyperbandPruner::initialize(const PrunerStudy& study) {
  if (!options_.max_resource) {
    for (const auto& t : study.trials) {
      const auto last = t.last_step();
      if (t.state == TrialState::kComplete && last) {
        options_.max_resource = std::max(options_.max_resource.value_or(0), *last + 1);
      }
    }
    if (!options_.max_resource) return false;
  }
  const double ratio = static_cast<double>(*options_.max_resource) / options_.min_resource;
  // log(x) / log(base), as Python's math.log(x, base), for the same rounding;
  // at least one bracket when an auto max_resource comes out below
  // min_resource (a first trial that reported fewer steps).
  const int n = std::max(
      1, static_cast<int>(std::floor(std::log(ratio) / std::log(options_.reduction_factor) + 1)));
  for (int b = 0; b < n; ++b) {
    const int s = n - 1 - b;
    const int budget =
        static_cast<int>(std::ceil(n * std::pow(options_.reduction_factor, s) / (s + 1)));
    budgets_.push_back(budget);
    total_budget_ += budget;
    brackets_.push_back(std::make_unique<SuccessiveHalvingPruner>(SuccessiveHalvingOptions{
        options_.min_resource, options_.reduction_factor, b, options_.bootstrap_count}));
  }
  return true;
}

int HyperbandPruner::bracket_of(const std::string& study_name, int number) const {
  if (brackets_.empty()) return 0;
  const std::string key = study_name + "_" + std::to_string(number);
  const uLong crc = ::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(key.data()),
                            static_cast<uInt>(key.size()));
  long n = static_cast<long>(crc % static_cast<uLong>(total_budget_));
  for (size_t b = 0; b < budgets_.size(); ++b) {
    n -= budgets_[b];
    if (n < 0) return static_cast<int>(b);
  }
  return static_cast<int>(budgets_.size()) - 1;  // unreachable: budgets sum to the total
}

PruneDecision HyperbandPruner::decide(const PrunerStudy& study, const PrunerTrial& trial) {
  if (!ready(study)) return {};
  const int bracket = bracket_of(study.name, trial.number);
  PrunerStudy same_bracket{study.name, study.direction, {}};
  for (const auto& t : study.trials) {
    if (bracket_of(study.name, t.number) == bracket) same_bracket.trials.push_back(t);
  }
  return brackets_[static_cast<size_t>(bracket)]->decide(same_bracket, trial);
}

}  // namespace hpo
