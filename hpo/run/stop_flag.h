// How `hpo run` is asked to stop: set from a signal handler, read by the
// workers. A lock-free atomic int is async-signal-safe to store.
#ifndef HPO_RUN_STOP_FLAG_H_
#define HPO_RUN_STOP_FLAG_H_

#include <atomic>

namespace hpo {

enum StopLevel : int {
  kKeepRunning = 0,
  kStopGracefully = 1,  // launch nothing new; SIGTERM trainers, wait the grace period
  kStopNow = 2,  // SIGKILL trainers at once
};

using StopFlag = std::atomic<int>;
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need a lock-free flag");

}  // namespace hpo

#endif  // HPO_RUN_STOP_FLAG_H_
