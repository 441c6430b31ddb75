#include "hpo/run/orphans.h"

#include <map>

#include "hpo/run/owner.h"

namespace hpo {

Orphanhood orphanhood(const TrialRecord& trial, const std::set<int64_t>& stale) {
  if (trial.state != TrialState::kRunning) return Orphanhood::kNone;
  const auto owner_attr = trial.system_attrs.find(kOwnerAttr);
  if (owner_attr == trial.system_attrs.end()) return Orphanhood::kNone;
  const Owner owner = Owner::from_json(owner_attr->second);
  if (in_this_pid_namespace(owner))
    return owner_is_dead(owner) ? Orphanhood::kOwnerDead : Orphanhood::kNone;
  return stale.count(trial.id) > 0 ? Orphanhood::kBeatStale : Orphanhood::kNone;
}

double owner_grace_s(const TrialRecord& trial, double default_interval_s) {
  const auto it = trial.system_attrs.find(kHeartbeatIntervalAttr);
  const bool recorded =
      it != trial.system_attrs.end() && it->second.is_number() && it->second.get<double>() > 0;
  return heartbeat_grace_s(recorded ? it->second.get<double>() : default_interval_s);
}

std::set<int64_t> stale_beats(Storage& storage, int64_t study_id,
                              const std::vector<TrialRecord>& trials, double default_interval_s) {
  std::map<double, std::set<int64_t>> by_grace;  // RUNNING trials by their owner's grace
  for (const auto& t : trials) {
    if (t.state == TrialState::kRunning)
      by_grace[owner_grace_s(t, default_interval_s)].insert(t.id);
  }
  std::set<int64_t> stale;
  for (const auto& [grace, ids] : by_grace) {
    for (int64_t id : storage.stale_trials(study_id, grace))
      if (ids.count(id)) stale.insert(id);
  }
  return stale;
}

}  // namespace hpo
