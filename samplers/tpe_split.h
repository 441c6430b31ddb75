// Which trials TPE learns from, and how it splits them into the good
// ("below") and the rest ("above"), ranking them as Optuna does.
#ifndef HPO_SAMPLERS_TPE_SPLIT_H_
#define HPO_SAMPLERS_TPE_SPLIT_H_

#include <map>
#include <vector>

#include "samplers/tpe_options.h"
#include "samplers/trial_view.h"

namespace hpo {

// A trial's place in TPE's ranking, see split_trials; smaller ranks first.
struct TpeRank {
  bool counts = false;  // false: TPE does not learn from the trial
  bool running = false;  // counted only with the constant liar
  double step = 0;  // (step, value) rank lexicographically
  double value = 0;
  double loss = 0;  // the value as a loss (negated when maximizing); NaN unless COMPLETE
};

TpeRank tpe_rank(const TrialView& trial, Direction direction, bool constant_liar);

struct TpeSplit {
  std::vector<const TrialView*> trials;  // split_trials: those that count, by trial number
  std::vector<int> below, above;  // indices into `trials` (the ranks), ascending
  int n_finished = 0;  // COMPLETE and PRUNED trials in `trials`
  // Per trial, its value as a loss (negated when maximizing); NaN for all
  // but COMPLETE trials (and for ranks that do not count). The
  // expected-improvement weights need them.
  std::vector<double> loss;
  // The loss of the best trial in "above", NaN when that is no COMPLETE one.
  double threshold = 0;
  // Per trial, its weight in l(x) when it is in "below"; empty: weighted as
  // the options say. Multi-objective TPE sets them (hypervolume shares).
  std::vector<double> below_weight;
};

// How many trials make up "below": ceil(gamma * n_finished) (kLinear) or
// ceil(gamma * sqrt(n_finished)) (kSqrt), at most 25.
int n_below(int n_finished, double gamma, TpeSplitRule rule = TpeSplitRule::kLinear);

// Complete trials rank by value. Pruned trials rank after all complete ones:
// those stopped at a later step first, then by their last intermediate value
// (NaN last); pruned trials that reported nothing come after those. Trials
// that broke their constraints come next, by total violation. With
// `constant_liar`, RUNNING trials count too, as the worst of all, so that
// parallel workers are pushed away from points already being tried.
// FAIL and WAITING trials, and complete trials without a value, are ignored.
TpeSplit split_trials(const std::map<int, TrialView>& history, Direction direction,
                      bool constant_liar, double gamma, TpeSplitRule rule = TpeSplitRule::kLinear);

// The same split of trials already ranked (tpe_rank), in trial order; ranks
// that do not count are in neither part. `trials` stays empty.
TpeSplit split_ranked(const std::vector<TpeRank>& ranks, double gamma,
                      TpeSplitRule rule = TpeSplitRule::kLinear);

}  // namespace hpo

#endif  // HPO_SAMPLERS_TPE_SPLIT_H_
