#include "hpo/run/sampling_space.h"

#include <algorithm>
#include <stdexcept>

#include "hpo/run/trial_config.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_constraints.h"

namespace hpo {

SamplingSpace::SamplingSpace(SearchSpace declared, SearchSpace bounded)
    : declared_(std::move(declared)), bounded_(std::move(bounded)) {
  const auto same_name = [](const ParamSpec& a, const ParamSpec& b) { return a.name == b.name; };
  if (!std::equal(declared_.begin(), declared_.end(), bounded_.begin(), bounded_.end(),
                  same_name)) {
    throw std::invalid_argument("bounded space has other parameters");
  }
}

std::optional<double> SamplingSpace::to_sampler(const StoredParam& param) const {
  for (size_t i = 0; i < declared_.size(); ++i) {
    if (declared_[i].name != param.name) continue;
    try {
      // By value, not by internal form: a categorical's index differs
      // between the two spaces when choices were dropped.
      return to_internal(bounded_[i].distribution, to_external(param.distribution, param.internal));
    } catch (const std::logic_error&) {  // not a choice, out of range
      return std::nullopt;
    }
  }
  return param.internal;  // not in this space (an older study's): as stored
}

TrialView SamplingSpace::view(const TrialRecord& trial) const {
  TrialView v;
  v.number = trial.number;
  v.state = trial.state;
  for (const auto& p : trial.params) {
    if (const auto internal = to_sampler(p)) v.params[p.name] = *internal;
  }
  v.value = trial.value;
  if (trial.values.size() > 1) v.values = trial.values;
  v.constraints = trial_constraints(trial.system_attrs);
  v.intermediate = trial.intermediate;
  const auto kind = trial.system_attrs.find(kFailKindAttr);
  v.infeasible =
      trial.state == TrialState::kFail && kind != trial.system_attrs.end() && kind->second == "oom";
  if (trial.system_attrs.count(kRanOutsideSpaceAttr)) {
    // The sampled point did not fit, and what ran instead is not in the
    // space: for the sampler, the point failed for lack of memory.
    v.state = TrialState::kFail;
    v.value.reset();
    v.values.clear();
    v.infeasible = true;
  }
  return v;
}

std::vector<StoredParam> SamplingSpace::to_stored(
    const std::map<std::string, double>& suggestion) const {
  std::vector<StoredParam> params;
  for (size_t i = 0; i < declared_.size(); ++i) {
    // A parameter whose condition failed is absent: no trial_params row,
    // as Optuna stores a parameter its objective never suggested.
    const auto found = suggestion.find(declared_[i].name);
    if (found == suggestion.end()) continue;
    const double internal = found->second;
    const ParamValue value = to_external(bounded_[i].distribution, internal);
    params.push_back({declared_[i].name, declared_[i].distribution,
                      to_internal(declared_[i].distribution, value)});
  }
  return params;
}

}  // namespace hpo
