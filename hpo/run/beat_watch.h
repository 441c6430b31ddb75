// A worker cut off from the database (a network partition, a server gone)
// stops its own trainers once its heartbeats have failed for longer than the
// grace after which other hosts may take its trials over: the trial's new
// trainer must not share its directory, checkpoint and GPU with the old one.
// Learning of a takeover (LostTrials) needs the database; this does not.
//
// The heartbeat thread notes each beat that got in; check() runs on a
// thread of its own, since a cut-off worker's storage calls may hang for as
// long as the network does.
#ifndef HPO_RUN_BEAT_WATCH_H_
#define HPO_RUN_BEAT_WATCH_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "hpo/launch/process.h"

namespace hpo {

class BeatWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // `grace`: how long other hosts wait for a beat (4 heartbeat intervals);
  // `kill_after`: the trainer's SIGTERM grace before SIGKILL.
  BeatWatch(Clock::duration grace, Clock::duration kill_after)
      : grace_(grace), kill_after_(kill_after) {}

  // A heartbeat for the trial got in; the call that wrote it began at
  // `sent`, which is no later than the time the database stored.
  void beat(int64_t trial_id, Clock::time_point sent);
  // The trial ended here: no more watching.
  void forget(int64_t trial_id);

  // While the trial's trainer runs, check() may signal it.
  void attach(int64_t trial_id, Process& process);
  void detach(int64_t trial_id);

  // SIGTERM to the trainers of trials whose last beat was sent more than the
  // grace ago, then SIGKILL `kill_after` later if they still run.
  void check(Clock::time_point now);
  // How long the trial had gone without a beat when its trainer was
  // stopped, if check() stopped it.
  std::optional<Clock::duration> stopped(int64_t trial_id) const;

 private:
  struct Trial {
    Clock::time_point last_beat;
    Process* trainer = nullptr;
    std::optional<Clock::time_point> terminated;  // when SIGTERM went
    std::optional<Clock::duration> silent;  // the beatless span then
  };

  const Clock::duration grace_;
  const Clock::duration kill_after_;
  mutable std::mutex mu_;
  std::map<int64_t, Trial> trials_;
};

// Attaches a trainer to the watch for the scope's life (none without a watch).
class WatchedTrainer {
 public:
  WatchedTrainer(BeatWatch* watch, int64_t trial_id, Process& process)
      : watch_(watch), trial_id_(trial_id) {
    if (watch_) watch_->attach(trial_id_, process);
  }
  ~WatchedTrainer() {
    if (watch_) watch_->detach(trial_id_);
  }
  WatchedTrainer(const WatchedTrainer&) = delete;
  WatchedTrainer& operator=(const WatchedTrainer&) = delete;

 private:
  BeatWatch* const watch_;
  const int64_t trial_id_;
};

}  // namespace hpo

#endif  // HPO_RUN_BEAT_WATCH_H_
