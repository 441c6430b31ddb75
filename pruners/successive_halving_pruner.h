// Asynchronous successive halving (ASHA): at steps min_resource * rf^k a
// trial enters rung k and continues only if its value is in the top 1/rf of
// the values every trial had on entering that rung. Defaults as Optuna 3.1.
#ifndef HPO_PRUNERS_SUCCESSIVE_HALVING_PRUNER_H_
#define HPO_PRUNERS_SUCCESSIVE_HALVING_PRUNER_H_

#include <optional>

#include "pruners/pruner.h"

namespace hpo {

struct SuccessiveHalvingOptions {
  std::optional<int> min_resource;  // steps before the first rung; empty = auto
  int reduction_factor = 4;
  int min_early_stopping_rate = 0;
  int bootstrap_count = 0;  // trials a rung needs before it promotes anyone
};

class SuccessiveHalvingPruner : public Pruner {
 public:
  explicit SuccessiveHalvingPruner(SuccessiveHalvingOptions options) : options_(options) {}
  std::string name() const override { return "successive_halving"; }
  PruneDecision decide(const PrunerStudy& study, const PrunerTrial& trial) override;

 private:
  SuccessiveHalvingOptions options_;  // min_resource is filled in once estimated
};

}  // namespace hpo

#endif  // HPO_PRUNERS_SUCCESSIVE_HALVING_PRUNER_H_
