#include "hpo/run/orphans.h"

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

}  // namespace hpo
