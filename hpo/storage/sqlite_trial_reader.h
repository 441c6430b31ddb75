// Loads whole trials (params, value, intermediate values, attributes) from
// Optuna's tables with one query per table, however many trials there are.
#ifndef HPO_STORAGE_SQLITE_TRIAL_READER_H_
#define HPO_STORAGE_SQLITE_TRIAL_READER_H_

#include <cstdint>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

class SqliteDb;

enum class TrialScope { kStudy, kTrial };

// The trials of study `id` (kStudy) or the one trial `id` (kTrial), ordered
// by number. Call inside a transaction so the tables are read as one
// snapshot. Throws SqliteError, or std::invalid_argument for values Optuna
// would not have written.
std::vector<TrialRecord> read_trials(SqliteDb& db, TrialScope scope, int64_t id);

}  // namespace hpo

#endif  // HPO_STORAGE_SQLITE_TRIAL_READER_H_
