// Loads whole trials (params, value, intermediate values, attributes) from
// Optuna's tables on PostgreSQL: the caller selects the trials' rows, this
// adds the rest with one query per table however many trials there are.
#ifndef HPO_STORAGE_PG_TRIAL_READER_H_
#define HPO_STORAGE_PG_TRIAL_READER_H_

#include <pqxx/pqxx>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

// The columns of `trials` that read_pg_trials() takes, in its order:
// SELECT kPgTrialColumns FROM trials WHERE ... ORDER BY number, trial_id.
extern const char kPgTrialColumns[];

// The trials of `rows`, in their order, complete. Call in the transaction
// that read `rows`. Throws pqxx errors, or std::invalid_argument for values
// Optuna would not have written.
std::vector<TrialRecord> read_pg_trials(pqxx::work& tx, const pqxx::result& rows);

}  // namespace hpo

#endif  // HPO_STORAGE_PG_TRIAL_READER_H_
