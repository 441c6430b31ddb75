// What a sampler knows of one trial: its parameters, state and results.
// Plain data, filled by the orchestrator from the study database.
#ifndef HPO_SAMPLERS_TRIAL_VIEW_H_
#define HPO_SAMPLERS_TRIAL_VIEW_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpo {

// The names match Optuna's TrialState, as stored in trials.state.
enum class TrialState { kRunning, kComplete, kPruned, kFail, kWaiting };

enum class Direction { kMinimize, kMaximize };

const char* to_string(TrialState state);  // "RUNNING", "COMPLETE", ...
const char* to_string(Direction direction);  // "MINIMIZE", "MAXIMIZE"

// Inverse of to_string; throws std::invalid_argument for unknown names.
TrialState trial_state_from_string(const std::string& name);
Direction direction_from_string(const std::string& name);

bool is_finished(TrialState state);

struct TrialView {
  int number = 0;
  TrialState state = TrialState::kRunning;
  std::map<std::string, double> params;  // internal representation
  std::optional<double> value;  // the objective, for COMPLETE trials
  // A multi-objective study's values, in the study's objective order, for
  // COMPLETE trials (`value` is values[0]); empty in a one-objective study.
  std::vector<double> values;
  // Constraint values as Optuna's samplers read them: the trial is feasible
  // when every one is <= 0. Empty when the study has no constraints.
  std::vector<double> constraints;
  std::map<int, double> intermediate;  // step -> objective reported at that step
  // A FAIL that says something about the params (out of memory): samplers
  // should rank it below every finished trial, not ignore it.
  bool infeasible = false;
  // Where the trial comes from: 0 for this study, k >= 1 for the k-th study
  // it warm-starts from (Sampler::tell_prior). Such a prior observation
  // informs the model but is never one of this study's trials.
  int source = 0;
};

}  // namespace hpo

#endif  // HPO_SAMPLERS_TRIAL_VIEW_H_
