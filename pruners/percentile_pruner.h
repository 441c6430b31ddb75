// Prunes a trial whose best intermediate value so far is worse than the
// given percentile of the COMPLETE trials' values at the same step. The
// median pruner is the 50th percentile. Defaults as Optuna 3.1.
#ifndef HPO_PRUNERS_PERCENTILE_PRUNER_H_
#define HPO_PRUNERS_PERCENTILE_PRUNER_H_

#include <vector>

#include "pruners/pruner.h"

namespace hpo {

struct PercentileOptions {
  double percentile = 50.0;  // in [0, 100]; of the better side, as in Optuna
  int n_startup_trials = 5;  // no pruning until this many trials are COMPLETE
  int n_warmup_steps = 0;  // no pruning before this step
  int interval_steps = 1;  // check at most once per interval
  int n_min_trials = 1;  // COMPLETE trials with a value at the step, at least
};

class PercentilePruner : public Pruner {
 public:
  explicit PercentilePruner(PercentileOptions options, std::string name = "percentile")
      : options_(options), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  PruneDecision decide(const PrunerStudy& study, const PrunerTrial& trial) override;

 private:
  PercentileOptions options_;
  std::string name_;
};

// numpy.nanpercentile with its default linear interpolation: NaNs are
// ignored; NaN when nothing is left.
double nan_percentile(std::vector<double> values, double percentile);

}  // namespace hpo

#endif  // HPO_PRUNERS_PERCENTILE_PRUNER_H_
