#include "hpo/run/beat_watch.h"

#include <signal.h>

namespace hpo {

void BeatWatch::beat(int64_t trial_id, Clock::time_point sent) {
  std::lock_guard<std::mutex> lock(mu_);
  Trial& t = trials_[trial_id];
  if (sent > t.last_beat) t.last_beat = sent;
}

void BeatWatch::forget(int64_t trial_id) {
  std::lock_guard<std::mutex> lock(mu_);
  trials_.erase(trial_id);
}

void BeatWatch::attach(int64_t trial_id, Process& process) {
  std::lock_guard<std::mutex> lock(mu_);
  trials_[trial_id].trainer = &process;
}

void BeatWatch::detach(int64_t trial_id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = trials_.find(trial_id);
  if (it != trials_.end()) it->second.trainer = nullptr;
}

void BeatWatch::check(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, t] : trials_) {
    if (!t.trainer) continue;
    if (!t.terminated && now - t.last_beat > grace_) {
      t.silent = now - t.last_beat;
      t.terminated = now;
      t.trainer->signal_group(SIGTERM);
    } else if (t.terminated && now - *t.terminated >= kill_after_) {
      t.trainer->signal_group(SIGKILL);
    }
  }
}

std::optional<BeatWatch::Clock::duration> BeatWatch::stopped(int64_t trial_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = trials_.find(trial_id);
  if (it == trials_.end()) return std::nullopt;
  return it->second.silent;
}

}  // namespace hpo
