// Sampling under Hyperband, as Optuna samples: a trial's parameters come
// from the trials of its own bracket only. Brackets stop trials at different
// first rungs, so a trial pruned early in an aggressive bracket says little
// of how its parameters would do in a lenient one; a model fitted across
// brackets would take it for a bad point. Each bracket gets a sampler of its
// own, told only that bracket's trials (and every prior observation).
//
// Pure computation, like the samplers it holds: the brackets come from the
// study's HyperbandPruner (a hash of the study name and trial number).
// Until the pruner knows its brackets (an auto max_resource needs a
// COMPLETE trial with steps), every trial is in one bracket, as in Optuna.
#ifndef HPO_RUN_BRACKET_SAMPLER_H_
#define HPO_RUN_BRACKET_SAMPLER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pruners/hyperband_pruner.h"
#include "samplers/sampler.h"

namespace hpo {

class BracketSampler : public Sampler {
 public:
  using Factory = std::function<std::unique_ptr<Sampler>()>;
  // `make` builds the study's sampler, the same each call; `pruner` must
  // outlive this sampler, and is read and set up here only under the lock
  // that guards both (StudyRunner's).
  BracketSampler(Factory make, HyperbandPruner& pruner, std::string study_name);

  std::string name() const override { return shown_->name(); }
  int startup_trials() const override { return shown_->startup_trials(); }
  ParamValues ask(const SearchSpace& space, int number) override;
  void tell(const TrialView& trial) override;
  void tell_prior(std::vector<TrialView> trials) override;

  // The bracket trial `number` samples in: 0 until the brackets are known.
  int bracket_of(int number) const { return pruner_.bracket_of(study_name_, number); }

 private:
  // The sampler of bracket `b`, made on first use and told its trials.
  Sampler& bracket(int b);

  Factory make_;
  HyperbandPruner& pruner_;
  const std::string study_name_;
  std::unique_ptr<Sampler> shown_;  // answers name() and startup_trials()
  int built_for_ = 0;  // the pruner's n_brackets() when brackets_ were made
  std::map<int, std::unique_ptr<Sampler>> brackets_;
};

}  // namespace hpo

#endif  // HPO_RUN_BRACKET_SAMPLER_H_
