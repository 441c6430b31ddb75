#include "samplers/mo_auto_sampler.h"

namespace hpo {

MoAutoSampler::MoAutoSampler(uint64_t seed, const std::vector<Direction>& directions,
                             int switch_after)
    : Sampler(seed, directions.empty() ? Direction::kMinimize : directions.front()),
      tpe_(seed, directions),
      nsga2_(seed, directions),
      switch_after_(switch_after) {}

void MoAutoSampler::tell(const TrialView& trial) {
  const auto it = history().find(trial.number);
  const bool was_complete = it != history().end() && it->second.state == TrialState::kComplete;
  if (trial.state == TrialState::kComplete && !was_complete) ++finished_;
  if (trial.state != TrialState::kComplete && was_complete) --finished_;
  Sampler::tell(trial);
  tpe_.tell(trial);
  nsga2_.tell(trial);
}

ParamValues MoAutoSampler::ask(const SearchSpace& space, int number) {
  if (finished_ < switch_after_) return tpe_.ask(space, number);
  return nsga2_.ask(space, number);
}

}  // namespace hpo
