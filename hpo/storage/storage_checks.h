// What every Storage backend checks and computes alike, apart from SQL:
// a finished trial's outcome, a param inside its distribution, the best
// value of a study's summary.
#ifndef HPO_STORAGE_STORAGE_CHECKS_H_
#define HPO_STORAGE_STORAGE_CHECKS_H_

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

}  // namespace hpo

#endif  // HPO_STORAGE_STORAGE_CHECKS_H_
