// The Tree-structured Parzen Estimator: the finished trials are split into
// the best few ("below") and the rest ("above"); a Parzen estimator l(x) is
// fitted to the first and g(x) to the second, and of n_ei_candidates draws
// from l(x) the one that maximizes log l(x) - log g(x) is suggested. The
// first n_startup_trials are random.
//
// The defaults (tpe_options.h) follow Watanabe (2023)'s recommendations:
// one joint model, expected-improvement weights, Hyperopt's bandwidths with
// a floor. optuna_tpe_options() is Optuna 3.1's TPESampler exactly. Beyond
// both: the constant liar, and numeric choices (batch sizes, widths)
// modelled as ordered.
//
// Conditional spaces (search_space.h) are modelled as Optuna's group=True
// models them: each set of parameters that occur together is one joint
// model fitted on the trials that hold them; a suggestion then leaves out
// each parameter whose condition its parents' values fail.
#ifndef HPO_SAMPLERS_TPE_SAMPLER_H_
#define HPO_SAMPLERS_TPE_SAMPLER_H_

#include <map>
#include <random>
#include <vector>

#include "samplers/parzen_estimator.h"
#include "samplers/parzen_memo.h"
#include "samplers/sampler.h"
#include "samplers/tpe_history.h"
#include "samplers/tpe_options.h"
#include "samplers/tpe_split.h"

namespace hpo {

class TpeSampler : public Sampler {
 public:
  TpeSampler(uint64_t seed, Direction direction, TpeOptions options = {})
      : Sampler(seed, direction),
        options_(options),
        rows_(direction, options.constant_liar, options.ordered_choices) {}

  std::string name() const override { return "tpe"; }
  int startup_trials() const override { return options_.n_startup_trials; }
  ParamValues ask(const SearchSpace& space, int number) override;
  void tell(const TrialView& trial) override;

  const TpeOptions& options() const { return options_; }

 protected:
  // The told trials as rows (TpeHistory: one per told trial, in trial
  // order), and their split into good and the rest. A subclass that ranks
  // trials otherwise (several objectives) overrides split().
  const TpeHistory& rows() const { return rows_; }
  virtual TpeSplit split() const;

 private:
  // The history as TPE sees it, split; the split's indices are rows.
  struct Model {
    const TpeHistory& rows;
    TpeSplit split;
    // The weight of prior observation k (numbered -1 - k), warm start only.
    std::vector<double> prior_weight;
  };

  std::vector<std::vector<int>> groups(const Model& model, const std::vector<int>& free,
                                       bool conditional) const;
  Eigen::ArrayXd weights(const Model& model, const std::vector<int>& rows, bool below) const;
  Eigen::ArrayXd own_weights(const Model& model, const std::vector<int>& rows, bool below) const;
  // The last l(x) and g(x) of one group (parzen_memo.h).
  struct GroupMemo {
    ParzenMemo below, above;
  };

  void sample_group(const std::vector<int>& group, const SearchSpace& space, const Model& model,
                    GroupMemo& memo, std::mt19937_64& rng, ParamValues& out) const;

  TpeOptions options_;
  TpeHistory rows_;
  std::vector<int> told_;  // trial numbers told since the last ask
  std::map<std::vector<int>, GroupMemo> memos_;  // the last ask's groups'
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_SAMPLER_H_
