// Which RUNNING trials have no live owner: their run died (kill -9, a power
// cut) or stopped beating. `hpo run` takes them over and runs them again;
// `hpo status` shows them as orphaned rather than as running.
#ifndef HPO_RUN_ORPHANS_H_
#define HPO_RUN_ORPHANS_H_

#include <cstdint>
#include <set>
#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

enum class Orphanhood {
  kNone,  // owned by a live run, not RUNNING, or not hpo's (an Optuna worker's)
  kOwnerDead,  // its owner's process here is gone: take it over at once
  kBeatStale,  // its owner is elsewhere and stopped beating: take it over
               // only while its heartbeat is still stale
};

// Judges one trial. In this PID namespace of this boot, by its owner's
// process; anywhere else (another host, or a look-alike with our host name:
// a container, a cloned machine), by whether its id is in `stale` (trials
// whose heartbeat is older than the grace; Storage::stale_trials). A live
// owner here is never judged gone, however late its beat.
Orphanhood orphanhood(const TrialRecord& trial, const std::set<int64_t>& stale);

// The heartbeat age past which another host takes a trial over: four
// heartbeat intervals.
inline double heartbeat_grace_s(double heartbeat_interval_s) { return 4 * heartbeat_interval_s; }

// The interval at which a trial's owner beats, in seconds, stored with the
// trial by the hpo that creates or takes it over: hosts may run one study
// from study files with different `heartbeat_interval`s, and a trial is
// judged by its owner's, not by the judge's.
inline constexpr const char* kHeartbeatIntervalAttr = "hpo:heartbeat_interval_s";

// The grace of `trial`'s owner: four of the interval it recorded, or of
// `default_interval_s` where it recorded none (Optuna, an older hpo).
double owner_grace_s(const TrialRecord& trial, double default_interval_s);

// The RUNNING trials of `trials` (the study `study_id`'s) whose heartbeat is
// older than their owner's grace: one Storage::stale_trials per distinct
// grace, most often one.
std::set<int64_t> stale_beats(Storage& storage, int64_t study_id,
                              const std::vector<TrialRecord>& trials, double default_interval_s);

}  // namespace hpo

#endif  // HPO_RUN_ORPHANS_H_
