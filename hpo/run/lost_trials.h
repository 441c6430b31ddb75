// Trials this worker ran until another worker took them over: a worker cut
// off from the database longer than the heartbeat grace is judged dead, and
// its trials are run again elsewhere. The heartbeat learns it (its guarded
// beat is refused) and notes it here; the trial's runner then stops its
// trainer, so that only the new owner's run writes to the trial.
#ifndef HPO_RUN_LOST_TRIALS_H_
#define HPO_RUN_LOST_TRIALS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

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

 private:
  mutable std::mutex mu_;
  std::map<int64_t, nlohmann::json> holders_;
};

}  // namespace hpo

#endif  // HPO_RUN_LOST_TRIALS_H_
