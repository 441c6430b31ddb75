// Multi-objective TPE (Ozaki et al. 2020, as Optuna's TPESampler does it
// for several objectives): the good trials ("below") are the best
// non-domination ranks, whole fronts first, the last front cut to size by
// greedy hypervolume subset selection; each good trial weighs in l(x) by
// its share of their hypervolume. Everything else (the model, the
// candidates, the constant liar, the options) is TpeSampler's.
//
// The split ranks only the fronts it needs (at most 25 trials make up
// "below"), so an ask costs about what a one-objective ask does however
// large the study; Optuna ranks every trial each time.
#ifndef HPO_SAMPLERS_MOTPE_SAMPLER_H_
#define HPO_SAMPLERS_MOTPE_SAMPLER_H_

#include <vector>

#include "samplers/tpe_sampler.h"

namespace hpo {

class MotpeSampler : public TpeSampler {
 public:
  MotpeSampler(uint64_t seed, std::vector<Direction> directions, TpeOptions options = {});

  void tell(const TrialView& trial) override;

 protected:
  TpeSplit split() const override;

 private:
  std::vector<Direction> directions_;
  // By trial number, kept as trials are told so that a split reads flat
  // arrays instead of every trial's values: the losses (directions_.size()
  // each), whether the trial is COMPLETE with values, and its violation.
  std::vector<double> losses_;
  std::vector<char> complete_;
  std::vector<double> violation_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_MOTPE_SAMPLER_H_
