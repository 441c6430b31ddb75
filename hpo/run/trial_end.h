// Stores how a trial ended so that no failure to store it wedges the study:
// a trial left RUNNING because its end was refused would be run again, and
// refused again, by every later `hpo run`.
#ifndef HPO_RUN_TRIAL_END_H_
#define HPO_RUN_TRIAL_END_H_

#include <cstdint>

#include "hpo/storage/storage.h"

namespace hpo {

// Ends trial `number` (id `trial_id`) as `outcome` says. If the database
// refuses that outcome, the trial is ended FAIL with why instead, and
// `outcome` becomes what was stored; if that is refused too, throws a
// StorageError that names the trial and how to end it by hand. Returns false,
// storing nothing, when the trial is no longer RUNNING (another client ended
// it). OwnershipLost (the trial taken over) passes through.
bool store_trial_end(Storage& storage, int64_t trial_id, int number, TrialOutcome& outcome);

}  // namespace hpo

#endif  // HPO_RUN_TRIAL_END_H_
