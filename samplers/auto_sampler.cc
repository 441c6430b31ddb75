#include "samplers/auto_sampler.h"

#include <variant>

namespace hpo {

namespace {

// Whether the GP models `param` as a number: a float, int or choice among
// numbers, without a condition (gp_sampler.h draws conditional ones at
// random; choices among names get an equality kernel).
bool gp_numeric(const ParamSpec& param) {
  if (param.condition) return false;
  const auto* c = std::get_if<CategoricalDistribution>(&param.distribution);
  return !c || is_ordered_numeric(*c);
}

}  // namespace

std::string AutoPlan::summary() const {
  if (gp_before <= 0) return "tpe";
  return "gp, then tpe from trial " + std::to_string(gp_before);
}

AutoPlan auto_plan(const SearchSpace& space, const AutoThresholds& thresholds) {
  const int n = static_cast<int>(space.size());
  int numeric = 0;
  for (const auto& p : space) numeric += gp_numeric(p);
  const std::string counts =
      std::to_string(numeric) + " of " + std::to_string(n) + " parameters numeric";
  AutoPlan plan;
  if (thresholds.constrained) {
    plan.why = "tpe: the study has constraints, which TPE models and the GP does not";
  } else if (n > thresholds.max_gp_parameters) {
    plan.why = "tpe: " + std::to_string(n) + " parameters, more than the GP's " +
               std::to_string(thresholds.max_gp_parameters);
  } else if (numeric < thresholds.min_numeric_share * n) {
    plan.why = "tpe: the space is mostly categorical or conditional (" + counts + ")";
  } else {
    plan.gp_before = thresholds.gp_trials;
    plan.why = "gp for trials 0-" + std::to_string(thresholds.gp_trials - 1) + " (small study, " +
               counts + "), then tpe";
  }
  return plan;
}

ParamValues AutoSampler::ask(const SearchSpace& space, int number) {
  if (number < auto_plan(space, thresholds_).gp_before) return gp_.ask(space, number);
  return tpe_.ask(space, number);
}

void AutoSampler::tell(const TrialView& trial) {
  Sampler::tell(trial);
  tpe_.tell(trial);
  gp_.tell(trial);
}

void AutoSampler::tell_prior(std::vector<TrialView> trials) {
  tpe_.tell_prior(trials);
  gp_.tell_prior(trials);
  Sampler::tell_prior(std::move(trials));
}

}  // namespace hpo
