// The ask/tell interface every sampler implements.
//
// Samplers are pure computation: no files, no database, no processes. The
// orchestrator tells a sampler what it learns of each trial and asks it for
// the next trial's parameters. A suggestion depends only on the seed, the
// told history and the trial number, so a resumed study (whose history is
// told again from the database) gets the same suggestions it would have got.
#ifndef HPO_SAMPLERS_SAMPLER_H_
#define HPO_SAMPLERS_SAMPLER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "samplers/search_space.h"
#include "samplers/trial_view.h"

namespace hpo {

// Internal values (see distribution.h) by parameter name.
using ParamValues = std::map<std::string, double>;

class Sampler {
 public:
  Sampler(uint64_t seed, Direction direction) : seed_(seed), direction_(direction) {}
  virtual ~Sampler() = default;
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  virtual std::string name() const = 0;

  // How many finished trials the sampler draws at random before it models
  // the history (TPE's startup); 0 for one that never models it.
  virtual int startup_trials() const { return 0; }

  // Suggests a value for every parameter of `space` for trial `number`.
  virtual ParamValues ask(const SearchSpace& space, int number) = 0;

  // Records a trial: new, running or finished. A later tell for the same
  // trial number replaces the earlier one.
  virtual void tell(const TrialView& trial) { history_[trial.number] = trial; }

  const std::map<int, TrialView>& history() const { return history_; }

  // Prior observations (warm start): COMPLETE trials of earlier studies of
  // the same space, each with its `source` >= 1. Models read them through
  // with_prior() (prior_observations.h); they never enter history(), so
  // they are not this study's trials. Replaces what was told before.
  // Virtual so that a sampler that delegates (auto) hands them on.
  virtual void tell_prior(std::vector<TrialView> trials) { prior_ = std::move(trials); }
  const std::vector<TrialView>& prior() const { return prior_; }

 protected:
  // A seed for trial `number`'s draws, mixed from the sampler's seed so that
  // neighbouring trials get unrelated streams (splitmix64 finalizer).
  uint64_t trial_seed(int number, uint64_t salt = 0) const;

  uint64_t seed() const { return seed_; }
  Direction direction() const { return direction_; }

 private:
  uint64_t seed_;
  Direction direction_;
  std::map<int, TrialView> history_;
  std::vector<TrialView> prior_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_SAMPLER_H_
