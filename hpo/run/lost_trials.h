// Trials this worker ran until another worker took them over, or another
// client ended them. A worker cut off from the database longer than the
// heartbeat grace is judged dead, and its trials are run again elsewhere;
// an Optuna worker's fail_stale_trials, or a person, can set a running trial
// FAIL. The heartbeat learns either (its beat is refused) and notes it here;
// the trial's runner then stops its trainer, which may report nothing until
// its end, so that it writes nothing more to the trial.
#ifndef HPO_RUN_LOST_TRIALS_H_
#define HPO_RUN_LOST_TRIALS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "samplers/trial_view.h"

namespace hpo {

class LostTrials {
 public:
  // Notes that trial `trial_id` is owned by `holder` now.
  void mark(int64_t trial_id, nlohmann::json holder) {
    std::lock_guard<std::mutex> lock(mu_);
    holders_[trial_id] = std::move(holder);
  }
  // The trial's new owner, if it was taken over.
  std::optional<nlohmann::json> holder(int64_t trial_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = holders_.find(trial_id);
    if (it == holders_.end()) return std::nullopt;
    return it->second;
  }

  // Notes that another client ended trial `trial_id` as `state`.
  void mark_ended(int64_t trial_id, TrialState state) {
    std::lock_guard<std::mutex> lock(mu_);
    ended_[trial_id] = state;
  }
  // What another client made the trial, if it ended it.
  std::optional<TrialState> ended(int64_t trial_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = ended_.find(trial_id);
    if (it == ended_.end()) return std::nullopt;
    return it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<int64_t, nlohmann::json> holders_;
  std::map<int64_t, TrialState> ended_;
};

}  // namespace hpo

#endif  // HPO_RUN_LOST_TRIALS_H_
