#include "hpo/run/trial_end.h"

#include <string>

#include "hpo/launch/trainer_text.h"
#include "hpo/storage/trial_attrs.h"

namespace hpo {

namespace {

// The least a trial's end can be: FAIL, why, and how long and how it ran.
TrialOutcome as_failure(const TrialOutcome& refused, const std::string& why) {
  TrialOutcome failure;
  failure.state = TrialState::kFail;
  failure.guard = refused.guard;
  for (const char* key : {kDurationAttr, kExitAttr}) {
    const auto it = refused.system_attrs.find(key);
    if (it != refused.system_attrs.end()) failure.system_attrs.insert(*it);
  }
  failure.system_attrs[kFailReasonAttr] = why;
  failure.system_attrs[kFailKindAttr] = "error";
  return failure;
}

// What to run to end the trial by hand, with Optuna.
std::string by_hand(const Storage& storage, int64_t trial_id) {
  return "python3 -c \"import optuna; optuna.storages.RDBStorage('" + storage.url() +
         "').set_trial_state_values(" + std::to_string(trial_id) +
         ", optuna.trial.TrialState.FAIL)\" (with the password, if the URL has one)";
}

}  // namespace

bool store_trial_end(Storage& storage, int64_t trial_id, int number, TrialOutcome& outcome) {
  try {
    return storage.finish_trial(trial_id, outcome);
  } catch (const OwnershipLost&) {
    throw;
  } catch (const StorageError& e) {
    // The message may quote what was refused: it must be storable itself.
    outcome = as_failure(outcome, "could not store the trial's end (" +
                                      std::string(to_string(outcome.state)) +
                                      "): " + valid_utf8(e.what()));
  }
  try {
    return storage.finish_trial(trial_id, outcome);
  } catch (const OwnershipLost&) {
    throw;
  } catch (const StorageError& e) {
    throw StorageError("trial " + std::to_string(number) + " (id " + std::to_string(trial_id) +
                       ") could not be ended, not even as FAIL: " + e.what() +
                       "; it stays RUNNING, and the next `hpo run` runs it again. To end it "
                       "instead: " +
                       by_hand(storage, trial_id));
  }
}

}  // namespace hpo
