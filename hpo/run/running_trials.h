// The trials this process runs now, which its heartbeat thread beats for.
// A mutex of its own, not the runner's: a worker holds the runner's while it
// creates a trial, which may wait on the database, and the heartbeat thread
// must never wait for that.
#ifndef HPO_RUN_RUNNING_TRIALS_H_
#define HPO_RUN_RUNNING_TRIALS_H_

#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

namespace hpo {

class RunningTrials {
 public:
  void add(int64_t trial_id) {
    std::lock_guard<std::mutex> lock(mu_);
    ids_.insert(trial_id);
  }
  void remove(int64_t trial_id) {
    std::lock_guard<std::mutex> lock(mu_);
    ids_.erase(trial_id);
  }
  std::vector<int64_t> ids() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {ids_.begin(), ids_.end()};
  }

 private:
  mutable std::mutex mu_;
  std::set<int64_t> ids_;
};

}  // namespace hpo

#endif  // HPO_RUN_RUNNING_TRIALS_H_
