// Loads whole trials (params, value, intermediate values, attributes) from
// Optuna's tables with one query per table, however many trials there are.
#ifndef HPO_STORAGE_SQLITE_TRIAL_READER_H_
#define HPO_STORAGE_SQLITE_TRIAL_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

class SqliteDb;

// Which trials to read.
struct TrialScope {
  enum class Kind { kStudy, kTrial, kStudyChanged, kTrialIds };
  Kind kind = Kind::kStudy;
  int64_t id = 0;  // the study (kStudy, kStudyChanged) or the trial (kTrial)
  int64_t after_id = 0;  // kStudyChanged: trials created after this trial_id...
  std::string also_ids_json;  // ...and these trial_ids, as a JSON array (kTrialIds: all of them)

  static TrialScope study(int64_t id) { return {Kind::kStudy, id, 0, ""}; }
  static TrialScope trial(int64_t id) { return {Kind::kTrial, id, 0, ""}; }
};

// The scope's trials, ordered by number. Call inside a transaction so the
// tables are read as one snapshot. Throws SqliteError, or
// std::invalid_argument for values Optuna would not have written.
std::vector<TrialRecord> read_trials(SqliteDb& db, const TrialScope& scope);

}  // namespace hpo

#endif  // HPO_STORAGE_SQLITE_TRIAL_READER_H_
