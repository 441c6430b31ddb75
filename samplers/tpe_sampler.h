// The Tree-structured Parzen Estimator, after Optuna 3.1's TPESampler: the
// finished trials are split into the best few ("below") and the rest
// ("above"); a Parzen estimator l(x) is fitted to the first and g(x) to the
// second, and of n_ei_candidates draws from l(x) the one that maximizes
// log l(x) - log g(x) is suggested. The first n_startup_trials are random.
//
// Beyond Optuna: the constant liar is on by default, and numeric choices
// (batch sizes, widths) are modelled as ordered by default.
#ifndef HPO_SAMPLERS_TPE_SAMPLER_H_
#define HPO_SAMPLERS_TPE_SAMPLER_H_

#include <random>
#include <vector>

#include "samplers/parzen_estimator.h"
#include "samplers/sampler.h"
#include "samplers/tpe_param.h"
#include "samplers/tpe_split.h"

namespace hpo {

struct TpeOptions {
  // One joint estimator over the parameters instead of one per parameter.
  bool multivariate = false;
  // With multivariate: model jointly the groups of parameters that always
  // occur together, instead of only the parameters every trial holds.
  bool group = false;
  int n_startup_trials = 10;   // random trials before TPE starts
  int n_ei_candidates = 24;    // draws from l(x) to choose from
  // "below" = ceil(gamma * finished trials), at most 25: Optuna's default
  // gamma function with the fraction as the knob.
  double gamma = 0.1;
  bool consider_prior = true;  // a broad prior kernel in each estimator
  double prior_weight = 1.0;
  bool consider_magic_clip = true;   // bandwidths at least range / min(100, kernels + 1)
  bool consider_endpoints = false;   // outermost kernels also look at the domain's ends
  // RUNNING trials count as the worst observations ("above"), so parallel
  // workers spread out. On by default: with one worker nothing is running
  // when it asks, so this changes nothing there.
  bool constant_liar = true;
  bool ordered_choices = true; // numeric categoricals are modelled as ordered
};

class TpeSampler : public Sampler {
 public:
  TpeSampler(uint64_t seed, Direction direction, TpeOptions options = {})
      : Sampler(seed, direction), options_(options) {}

  std::string name() const override { return "tpe"; }
  ParamValues ask(const SearchSpace& space, int number) override;

  const TpeOptions& options() const { return options_; }

 private:
  // The history as TPE sees it: one row per counted trial, one column per
  // parameter, in model space; NaN where a trial lacks the parameter.
  struct Model {
    std::vector<TpeParam> params;
    TpeSplit split;
    Eigen::ArrayXXd values;
  };

  Eigen::ArrayXXd model_values(const SearchSpace& space, const Model& model) const;
  std::vector<std::vector<int>> groups(const Model& model, const std::vector<int>& free) const;
  void sample_group(const std::vector<int>& group, const SearchSpace& space, const Model& model,
                    std::mt19937_64& rng, ParamValues& out) const;

  TpeOptions options_;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_SAMPLER_H_
