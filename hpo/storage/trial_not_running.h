// A write for a RUNNING trial that found it ended: another client set its
// state (an Optuna worker's fail_stale_trials, say). Like OwnershipLost, an
// answer for the caller rather than a failure, never retried; nothing was
// written. Thrown by Storage::set_intermediate_value and record_heartbeat.
#ifndef HPO_STORAGE_TRIAL_NOT_RUNNING_H_
#define HPO_STORAGE_TRIAL_NOT_RUNNING_H_

#include <cstdint>
#include <string>

#include "hpo/storage/storage.h"

namespace hpo {

class TrialNotRunning : public StorageError {
 public:
  TrialNotRunning(int64_t trial_id, TrialState state)
      : StorageError("trial " + std::to_string(trial_id) + " is " + to_string(state) +
                     ", not RUNNING"),
        trial_id(trial_id),
        state(state) {}
  int64_t trial_id;
  TrialState state;  // what the other client made it
};

}  // namespace hpo

#endif  // HPO_STORAGE_TRIAL_NOT_RUNNING_H_
