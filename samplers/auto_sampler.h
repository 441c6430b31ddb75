// `sampler: {name: auto}`, the default: the GP while the study is small and
// its space mostly numeric, TPE once it grows or when the space is wide or
// mostly categorical (auto_plan says which and why). Both samplers hear
// every trial, so the switch only changes who answers an ask.
//
// Which sampler answers depends only on the space and the trial number, so
// every suggestion stays a function of (seed, history, number): a resumed
// study and parallel workers switch at the same trial. Both share their
// startup points (startup.h), so the first trials do not depend on the plan.
#ifndef HPO_SAMPLERS_AUTO_SAMPLER_H_
#define HPO_SAMPLERS_AUTO_SAMPLER_H_

#include <climits>
#include <string>

#include "samplers/gp_sampler.h"
#include "samplers/tpe_sampler.h"

namespace hpo {

struct AutoPlan {
  // Trials numbered below this ask the GP, the rest TPE; 0: TPE throughout.
  int gp_before = 0;
  std::string why;  // one line, for `hpo run` and the study's attrs
  // "gp, then tpe from trial 100", "tpe": what the plan uses.
  std::string summary() const;
};

// The thresholds, each measured with tools/bench/sampler_quality (the
// numbers are in docs/benchmarks.md).
struct AutoThresholds {
  int gp_trials = 50;  // the GP answers trials below this number
  int max_gp_parameters = 20;  // more parameters than this: TPE throughout
  // TPE throughout when fewer than this share of the parameters are numbers
  // the GP models: floats, ints and numeric choices without a condition.
  // Choices among names get only an equality kernel in the GP, conditional
  // parameters none (it draws them at random); on the bench's conditional
  // problem (1 of 10 such numbers) TPE beat the GP at 10, 20 and 50 trials.
  double min_numeric_share = 0.5;
  // The study has constraints: TPE throughout, which ranks a trial that
  // broke them after every feasible one, as Optuna 5.0's TPE does; hpo's GP
  // does not model constraints (Optuna 5.0's does, with a GP per constraint).
  bool constrained = false;
};

AutoPlan auto_plan(const SearchSpace& space, const AutoThresholds& thresholds = {});

class AutoSampler : public Sampler {
 public:
  AutoSampler(uint64_t seed, Direction direction, TpeOptions tpe = {}, GpOptions gp = {},
              AutoThresholds thresholds = {})
      : Sampler(seed, direction),
        tpe_(seed, direction, tpe),
        gp_(seed, direction, gp),
        thresholds_(thresholds) {}

  std::string name() const override { return "auto"; }
  int startup_trials() const override { return gp_.startup_trials(); }
  ParamValues ask(const SearchSpace& space, int number) override;
  void tell(const TrialView& trial) override;
  // Both delegates hear the earlier studies' trials, as they hear this one's.
  void tell_prior(std::vector<TrialView> trials) override;

 private:
  TpeSampler tpe_;
  GpSampler gp_;
  AutoThresholds thresholds_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_AUTO_SAMPLER_H_
