// `auto` for several objectives: multi-objective TPE while the study is
// small, NSGA-II once `switch_after` trials have finished (README's
// Benchmarks: TPE leads early, the evolution catches up on long studies).
// Both are told everything, so the switch loses nothing: NSGA-II's first
// generations are simply TPE's trials.
#ifndef HPO_SAMPLERS_MO_AUTO_SAMPLER_H_
#define HPO_SAMPLERS_MO_AUTO_SAMPLER_H_

#include <memory>
#include <vector>

#include "samplers/motpe_sampler.h"
#include "samplers/nsga2_sampler.h"

namespace hpo {

class MoAutoSampler : public Sampler {
 public:
  MoAutoSampler(uint64_t seed, const std::vector<Direction>& directions, int switch_after);

  std::string name() const override { return "auto"; }
  int startup_trials() const override { return tpe_.startup_trials(); }
  ParamValues ask(const SearchSpace& space, int number) override;
  void tell(const TrialView& trial) override;

 private:
  MotpeSampler tpe_;
  Nsga2Sampler nsga2_;
  int switch_after_;
  int finished_ = 0;  // COMPLETE trials told (each counted once)
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_MO_AUTO_SAMPLER_H_
