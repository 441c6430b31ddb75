#include "hpo/storage/storage_checks.h"

#include <cmath>

#include "hpo/storage/optuna_codec.h"
#include "hpo/storage/trial_constraints.h"

namespace hpo {

void check_outcome(const TrialOutcome& outcome) {
  if (!is_finished(outcome.state)) {
    throw StorageError(std::string("cannot finish a trial as ") + to_string(outcome.state));
  }
  if (outcome.state == TrialState::kComplete && !outcome.value && outcome.values.empty()) {
    throw StorageError("a COMPLETE trial needs a value");
  }
  for (double v : outcome_values(outcome)) {
    if (std::isnan(v)) throw StorageError("a trial value cannot be NaN");
  }
  if (!outcome.values.empty() && outcome.value && *outcome.value != outcome.values.front()) {
    throw StorageError("a trial's value must be its first objective's");
  }
}

std::string directions_text(const std::vector<Direction>& directions) {
  if (directions.size() == 1) return to_string(directions.front());
  std::string text = "[";
  for (size_t i = 0; i < directions.size(); ++i)
    text += std::string(i ? ", " : "") + to_string(directions[i]);
  return text + "]";
}

void require_directions(const StudyRecord& stored, const std::vector<Direction>& wanted) {
  const auto have = objective_directions(stored);
  if (have == wanted) return;
  throw StorageError("study '" + stored.name + "' exists with direction " + directions_text(have) +
                     ", not " + directions_text(wanted));
}

void require_inside(const StoredParam& p) {
  if (!contains(p.distribution, p.internal)) {
    throw StorageError("param '" + p.name + "' = " + std::to_string(p.internal) +
                       " is outside its distribution " + encode_distribution(p.distribution));
  }
}

void fold_best(StudySummary& s, const std::string& type, std::optional<double> min,
               std::optional<double> max) {
  const bool maximize = s.study.direction == Direction::kMaximize;
  std::optional<double> v = maximize ? max : min;
  if (type != "FINITE") v = decode_value(std::nullopt, type);
  if (!v) return;
  if (!s.best_value || (maximize ? *v > *s.best_value : *v < *s.best_value)) s.best_value = v;
}

void ConstrainedFold::row(int64_t study_id, int64_t trial_id, const std::string& type,
                          std::optional<double> value, const std::string& key,
                          const std::string& value_json) {
  if (trial_id != trial_id_) {
    finish();
    study_id_ = study_id, trial_id_ = trial_id, type_ = type, value_ = value;
  }
  constraints_[key] = from_python_json(value_json);
}

void ConstrainedFold::finish() {
  const auto it = by_id_.find(study_id_);
  if (trial_id_ >= 0 && it != by_id_.end() && is_feasible(trial_constraints(constraints_)))
    fold_best(*it->second, type_, value_, value_);
  trial_id_ = -1;
  constraints_.clear();
}

}  // namespace hpo
