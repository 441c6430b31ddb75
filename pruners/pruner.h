// Pruners decide, after each intermediate report, whether a trial should
// stop early. Pure computation like the samplers: no I/O, no processes. The
// rules follow Optuna 3.1's pruners so that decisions match on the same
// inputs; state a pruner keeps across trials (successive halving's rungs)
// is returned to the caller to store, under Optuna's attribute names.
#ifndef HPO_PRUNERS_PRUNER_H_
#define HPO_PRUNERS_PRUNER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "samplers/trial_view.h"

namespace hpo {

// What a pruner knows of one trial.
struct PrunerTrial {
  int number = 0;
  TrialState state = TrialState::kRunning;
  std::map<int, double> intermediate;  // step -> objective (NaN allowed)
  std::map<int, double> rungs;  // rung -> value, Optuna's "completed_rung_N"

  std::optional<int> last_step() const;
};

struct PrunerStudy {
  std::string name;  // Hyperband assigns brackets by a hash of it
  Direction direction = Direction::kMaximize;
  std::vector<PrunerTrial> trials;  // every trial of the study, the current one included
};

struct PruneDecision {
  bool prune = false;
  std::map<int, double> completed_rungs;  // rungs the trial reached now: store them
};

class Pruner {
 public:
  virtual ~Pruner() = default;
  virtual std::string name() const = 0;
  // `trial` carries every intermediate value reported so far.
  virtual PruneDecision decide(const PrunerStudy& study, const PrunerTrial& trial) = 0;
};

// Never prunes: the "none" pruner.
class NopPruner : public Pruner {
 public:
  std::string name() const override { return "none"; }
  PruneDecision decide(const PrunerStudy&, const PrunerTrial&) override { return {}; }
};

// The pruners a study file can name: the one list of them.
const std::vector<std::string>& pruner_names();

// The attribute name Optuna's successive halving uses for a rung's value.
std::string completed_rung_key(int rung);

}  // namespace hpo

#endif  // HPO_PRUNERS_PRUNER_H_
