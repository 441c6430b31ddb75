#include "hpo/storage/storage_checks.h"

#include <cmath>

#include "hpo/storage/optuna_codec.h"

namespace hpo {

void check_outcome(const TrialOutcome& outcome) {
  if (!is_finished(outcome.state)) {
    throw StorageError(std::string("cannot finish a trial as ") + to_string(outcome.state));
  }
  if (outcome.state == TrialState::kComplete && !outcome.value) {
    throw StorageError("a COMPLETE trial needs a value");
  }
  if (outcome.value && std::isnan(*outcome.value)) {
    throw StorageError("a trial value cannot be NaN");
  }
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

}  // namespace hpo
