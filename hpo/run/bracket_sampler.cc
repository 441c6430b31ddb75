#include "hpo/run/bracket_sampler.h"

#include <utility>

namespace hpo {

BracketSampler::BracketSampler(Factory make, HyperbandPruner& pruner, std::string study_name)
    : Sampler(0, Direction::kMinimize),  // unused: the brackets' samplers draw
      make_(std::move(make)),
      pruner_(pruner),
      study_name_(std::move(study_name)),
      shown_(make_()) {}

ParamValues BracketSampler::ask(const SearchSpace& space, int number) {
  if (pruner_.n_brackets() == 0) {
    // The brackets may be known before the pruner first decides: from an
    // explicit max_resource, or from the trials told so far.
    PrunerStudy study{study_name_, Direction::kMinimize, {}};
    for (const auto& [n, t] : history()) study.trials.push_back({n, t.state, t.intermediate, {}});
    pruner_.ready(study);
  }
  if (pruner_.n_brackets() != built_for_) {
    brackets_.clear();  // trials change brackets once the brackets are known
    built_for_ = pruner_.n_brackets();
  }
  return bracket(bracket_of(number)).ask(space, number);
}

void BracketSampler::tell(const TrialView& trial) {
  Sampler::tell(trial);
  if (pruner_.n_brackets() != built_for_) return;  // ask() makes them anew
  const auto it = brackets_.find(bracket_of(trial.number));
  if (it != brackets_.end()) it->second->tell(trial);
}

void BracketSampler::tell_prior(std::vector<TrialView> trials) {
  for (auto& [b, sampler] : brackets_) sampler->tell_prior(trials);
  Sampler::tell_prior(std::move(trials));
}

Sampler& BracketSampler::bracket(int b) {
  std::unique_ptr<Sampler>& sampler = brackets_[b];
  if (!sampler) {
    sampler = make_();
    sampler->tell_prior(prior());
    for (const auto& [n, t] : history())
      if (bracket_of(n) == b) sampler->tell(t);
  }
  return *sampler;
}

}  // namespace hpo
