// What every Storage backend checks and computes alike, apart from SQL:
// a finished trial's outcome, a param inside its distribution, the best
// value of a study's summary.
#ifndef HPO_STORAGE_STORAGE_CHECKS_H_
#define HPO_STORAGE_STORAGE_CHECKS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

// Throws StorageError unless `outcome` can end a trial: a finished state,
// a value for COMPLETE, never NaN.
void check_outcome(const TrialOutcome& outcome);

// Throws StorageError unless a stored study's directions are `wanted`: the
// message names both.
void require_directions(const StudyRecord& stored, const std::vector<Direction>& wanted);

// "MAXIMIZE" or "[MAXIMIZE, MINIMIZE]".
std::string directions_text(const std::vector<Direction>& directions);

// Throws StorageError if the param's value is outside its distribution.
void require_inside(const StoredParam& p);

// Folds one (value_type, MIN(value), MAX(value)) group of a study's COMPLETE
// values into its best value so far.
void fold_best(StudySummary& s, const std::string& type, std::optional<double> min,
               std::optional<double> max);

// A study's best ignores infeasible trials (a constraint value > 0), as
// Optuna's best_trial does, and SQL's MIN/MAX cannot judge a constraint's
// JSON. So the MIN/MAX query skips trials with constraint attributes, and
// these are folded one by one from kConstrainedValuesSql's rows.
inline constexpr const char* kBestValuesSql =
    "SELECT t.study_id, v.value_type, MIN(v.value), MAX(v.value) FROM trials t "
    "JOIN trial_values v ON v.trial_id = t.trial_id AND v.objective = 0 "
    "WHERE t.state = 'COMPLETE' AND NOT EXISTS (SELECT 1 FROM trial_system_attributes a "
    "WHERE a.trial_id = t.trial_id AND (a.key = 'constraints' OR a.key LIKE 'constraints:%')) "
    "GROUP BY t.study_id, v.value_type";
// One row per constraint attribute of a COMPLETE trial: study_id, trial_id,
// value_type, value, key, value_json; a trial's rows are adjacent.
inline constexpr const char* kConstrainedValuesSql =
    "SELECT t.study_id, t.trial_id, v.value_type, v.value, a.key, a.value_json FROM trials t "
    "JOIN trial_values v ON v.trial_id = t.trial_id AND v.objective = 0 "
    "JOIN trial_system_attributes a ON a.trial_id = t.trial_id "
    "AND (a.key = 'constraints' OR a.key LIKE 'constraints:%') "
    "WHERE t.state = 'COMPLETE' ORDER BY t.trial_id";

// Gathers kConstrainedValuesSql's rows trial by trial and folds each
// feasible trial's value into its study's best; an infeasible one adds
// nothing.
class ConstrainedFold {
 public:
  explicit ConstrainedFold(const std::map<int64_t, StudySummary*>& by_id) : by_id_(by_id) {}
  void row(int64_t study_id, int64_t trial_id, const std::string& type, std::optional<double> value,
           const std::string& key, const std::string& value_json);
  void finish();  // after the last row

 private:
  const std::map<int64_t, StudySummary*>& by_id_;
  int64_t study_id_ = 0, trial_id_ = -1;
  std::string type_;  // trial_values.value_type
  std::optional<double> value_;
  Attrs constraints_;  // the trial's constraint attributes
};

}  // namespace hpo

#endif  // HPO_STORAGE_STORAGE_CHECKS_H_
