// Hyperband: several successive-halving brackets with different first
// rungs; each trial belongs to one bracket, chosen by a hash of the study
// name and trial number, and competes only within it. Defaults as Optuna 3.1.
#ifndef HPO_PRUNERS_HYPERBAND_PRUNER_H_
#define HPO_PRUNERS_HYPERBAND_PRUNER_H_

#include <memory>
#include <optional>
#include <vector>

#include "pruners/successive_halving_pruner.h"

namespace hpo {

struct HyperbandOptions {
  int min_resource = 1;
  std::optional<int> max_resource;  // empty = auto: the longest COMPLETE trial's steps
  int reduction_factor = 3;
  int bootstrap_count = 0;
};

class HyperbandPruner : public Pruner {
 public:
  explicit HyperbandPruner(HyperbandOptions options) : options_(options) {}
  std::string name() const override { return "hyperband"; }
  PruneDecision decide(const PrunerStudy& study, const PrunerTrial& trial) override;

  // Sets up the brackets if they can be: max_resource is given, or `study`
  // has a COMPLETE trial with steps to take it from. True once they exist.
  bool ready(const PrunerStudy& study) { return !brackets_.empty() || initialize(study); }

  // The bracket of trial `number`; 0 until the brackets exist.
  int bracket_of(const std::string& study_name, int number) const;
  int n_brackets() const { return static_cast<int>(brackets_.size()); }

 private:
  bool initialize(const PrunerStudy& study);

  HyperbandOptions options_;
  std::vector<std::unique_ptr<SuccessiveHalvingPruner>> brackets_;
  std::vector<int> budgets_;  // each bracket's share of trials
  int total_budget_ = 0;
};

}  // namespace hpo

#endif  // HPO_PRUNERS_HYPERBAND_PRUNER_H_
